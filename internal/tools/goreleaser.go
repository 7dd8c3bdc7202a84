package tools

import (
	"context"
	"os"
	"os/exec"
	"strings"
)

// releaseRepoURL is the project's repository. GoReleaser reads the git
// remote's URL along with the commit; see GoReleaserCommand.
const releaseRepoURL = "https://github.com/kubectl-graceful/kubectl-graceful.git"

// GoReleaserCommand returns the command that runs the GoReleaser binary at
// path with args in the repository at repo.
//
// GoReleaser v2 reads the branch, commit, date and remote URL as one step
// (internal/pipe/git); in a snapshot any failure there is ignored by
// stamping every field "none". A clone without a remote (a local worktree, a
// `git init` checkout) would so build binaries whose commit is "none". When
// repo has no remote, the command is given the project's URL as
// remote.origin.url through git's GIT_CONFIG_* environment, which changes no
// file; the URL is not used by a snapshot.
func GoReleaserCommand(ctx context.Context, path, repo string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = repo
	cmd.Env = os.Environ()
	if !hasRemote(ctx, repo) {
		cmd.Env = append(cmd.Env,
			"GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=remote.origin.url",
			"GIT_CONFIG_VALUE_0="+releaseRepoURL)
	}
	return cmd
}

// hasRemote reports whether the git repository at repo has a remote.
func hasRemote(ctx context.Context, repo string) bool {
	cmd := exec.CommandContext(ctx, "git", "remote")
	cmd.Dir = repo
	out, err := cmd.Output()
	return err == nil && strings.TrimSpace(string(out)) != ""
}

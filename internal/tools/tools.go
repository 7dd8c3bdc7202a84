// Package tools builds the tools the project uses (GoReleaser, krew, krew's
// manifest validator, golangci-lint) from the Go module proxy into a
// per-user cache, once per version, so that `make dist`, `make lint` and the
// install test need neither a preinstalled tool nor a network beyond the
// module proxy.
package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Tool is a Go command installed with `go install Package@Version`.
type Tool struct {
	// Name is the binary's name, without ".exe".
	Name string
	// Package is the main package's import path.
	Package string
	// Version is the module version, for example "v2.15.1".
	Version string
}

// The tools and versions the project pins. Changing a version installs the
// new one beside the old in the cache; nothing is overwritten.
var (
	GoReleaser           = Tool{Name: "goreleaser", Package: "github.com/goreleaser/goreleaser/v2", Version: "v2.15.1"}
	Krew                 = Tool{Name: "krew", Package: "sigs.k8s.io/krew/cmd/krew", Version: "v0.4.3"}
	ValidateKrewManifest = Tool{Name: "validate-krew-manifest", Package: "sigs.k8s.io/krew/cmd/validate-krew-manifest", Version: "v0.4.3"}
	// GolangCILint is the linter `make lint` runs with .golangci.yml.
	GolangCILint = Tool{Name: "golangci-lint", Package: "github.com/golangci/golangci-lint/v2/cmd/golangci-lint", Version: "v2.15.0"}
)

// All lists the pinned tools by name, for the hack/tool command.
var All = []Tool{GoReleaser, Krew, ValidateKrewManifest, GolangCILint}

// CacheDir returns ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-graceful/tools
// (os.UserCacheDir's rule; ~/Library/Caches on macOS).
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the user cache directory: %w", err)
	}
	return filepath.Join(base, "kubectl-graceful", "tools"), nil
}

// Path returns where the tool's binary lives under cacheDir: one folder per
// name and version, for example goreleaser-v2.15.1/goreleaser.
func (t Tool) Path(cacheDir string) string {
	bin := t.Name
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	return filepath.Join(cacheDir, t.Name+"-"+t.Version, bin)
}

// Ensure returns the path of the tool's binary, building it first if the
// cache does not have it. The build goes to a temporary folder that is then
// renamed into place, so a concurrent Ensure or an interrupted build never
// leaves a half-written binary behind. It returns an error with go install's
// output when the build fails.
func (t Tool) Ensure(ctx context.Context) (string, error) {
	cacheDir, err := CacheDir()
	if err != nil {
		return "", err
	}
	path := t.Path(cacheDir)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cacheDir, ".install-"+t.Name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)

	cmd := exec.CommandContext(ctx, "go", "install", t.Package+"@"+t.Version)
	// GOOS/GOARCH cleared: the tool runs here, whatever the caller builds for.
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOOS=", "GOARCH=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w\n%s", t.Package, t.Version, err, out)
	}
	// A rename that fails because another Ensure got there first is fine.
	if err := os.Rename(tmp, filepath.Dir(path)); err != nil {
		if _, statErr := os.Stat(path); statErr != nil {
			return "", err
		}
	}
	return path, nil
}

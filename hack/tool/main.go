// Command tool runs or locates a pinned tool, building it into the per-user
// cache first if needed (see internal/tools).
//
//	go run ./hack/tool NAME            prints the tool's path
//	go run ./hack/tool goreleaser ARGS runs GoReleaser in the current repository
//
// The Makefile's lint target uses the first form (golangci-lint); dist.mk
// the second: `go run ./hack/tool goreleaser release --snapshot --clean`.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/kubectl-graceful/kubectl-graceful/internal/tools"
)

func main() {
	err := run(os.Args[1:])
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		os.Exit(exitErr.ExitCode()) // GoReleaser has said why
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: tool NAME [ARGS] (NAME is one of %s)", names())
	}
	ctx := context.Background()
	for _, t := range tools.All {
		if t.Name != args[0] {
			continue
		}
		if cache, err := tools.CacheDir(); err == nil {
			if _, err := os.Stat(t.Path(cache)); err != nil {
				fmt.Fprintf(os.Stderr, "building %s %s from the Go module proxy into %s (once; minutes)...\n", t.Name, t.Version, cache)
			}
		}
		path, err := t.Ensure(ctx)
		if err != nil {
			return err
		}
		if len(args) == 1 {
			_, err = fmt.Println(path)
			return err
		}
		if t != tools.GoReleaser {
			return fmt.Errorf("only goreleaser is run by this command; run %s directly", path)
		}
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		cmd := tools.GoReleaserCommand(ctx, path, wd, args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		return cmd.Run()
	}
	return fmt.Errorf("unknown tool %q: use one of %s", args[0], names())
}

func names() []string {
	var n []string
	for _, t := range tools.All {
		n = append(n, t.Name)
	}
	return n
}

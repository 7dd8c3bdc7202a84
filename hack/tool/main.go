// Command tool prints the path of a pinned release tool, building it into the
// per-user cache first if needed (see internal/tools). The Makefile uses it:
//
//	GORELEASER=$(go run ./hack/tool goreleaser)
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/kubectl-graceful/kubectl-graceful/internal/tools"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: tool NAME (one of %s)", names())
	}
	for _, t := range tools.All {
		if t.Name == args[0] {
			path, err := t.Ensure(context.Background())
			if err != nil {
				return err
			}
			_, err = fmt.Println(path)
			return err
		}
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

// Command checkdocs rewrites the generated check list of docs/audit.md from
// the catalogue in pkg/inspect (`make docs`).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kubectl-graceful/kubectl-graceful/internal/checkdocs"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	files, err := checkdocs.Render(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkdocs:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(*root, n), files[n], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "checkdocs:", err)
			os.Exit(1)
		}
	}
}

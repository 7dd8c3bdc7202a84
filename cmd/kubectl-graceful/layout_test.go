package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLibrariesLeaveTheCommandLineToCmd holds the layout README.md
// describes: flags, terminals and signals are handled here, in
// cmd/kubectl-graceful; no package under pkg/ imports cobra, x/term or
// os/signal itself.
func TestLibrariesLeaveTheCommandLineToCmd(t *testing.T) {
	forbidden := map[string]bool{"github.com/spf13/cobra": true, "golang.org/x/term": true, "os/signal": true}
	root := filepath.Join("..", "..", "pkg")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); forbidden[p] {
				t.Errorf("%s imports %s: that belongs in cmd/kubectl-graceful", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

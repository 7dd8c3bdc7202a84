// Command krew-manifest renders krew/graceful.yaml for the archives that
// `make dist` left in dist/, with file:// URIs and their sha256, so that the
// plugin installs locally with
//
//	kubectl krew install --manifest=dist/krew/graceful.yaml --archive=dist/kubectl-graceful_linux_amd64.tar.gz
//
// (krew downloads only over HTTP(S), so --archive is needed for file:// URIs.)
//
// Usage: go run ./hack/krew-manifest [-template krew/graceful.yaml] [-dist dist] [-o dist/krew/graceful.yaml]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubectl-graceful/kubectl-graceful/internal/krewmanifest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("krew-manifest", flag.ContinueOnError)
	tmplPath := fs.String("template", filepath.Join("krew", "graceful.yaml"), "krew-release-bot template")
	distDir := fs.String("dist", "dist", "GoReleaser's dist folder")
	// krew requires the manifest's file name to be the plugin's name.
	out := fs.String("o", filepath.Join("dist", "krew", "graceful.yaml"), "where to write the manifest")
	uriBase := fs.String("uri-base", "", "URL the archives are served from; empty for file:// URIs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := krewmanifest.VerifyChecksums(*distDir); err != nil {
		return err
	}
	tag, err := krewmanifest.DistTag(*distDir)
	if err != nil {
		return err
	}
	tmpl, err := os.ReadFile(*tmplPath)
	if err != nil {
		return err
	}
	manifest, err := krewmanifest.Render(tmpl, tag, *distDir, *uriBase)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*out, manifest, 0o644); err != nil {
		return err
	}
	fmt.Println(*out)
	return nil
}

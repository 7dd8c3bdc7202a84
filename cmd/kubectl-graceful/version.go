package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/version"
)

// versionFormats are version's -o values ("" for one line).
var versionFormats = []string{"", "json", "yaml"}

// versionOptions prints the plugin's own stamped version; it never contacts
// the cluster.
type versionOptions struct {
	// output is "" for one line, "json" or "yaml".
	output string
	out    io.Writer
}

// newCmdVersion builds `kubectl graceful version`.
func newCmdVersion() *cobra.Command {
	o := &versionOptions{}
	cmd := &cobra.Command{Use: "version", Short: "Print the plugin's version", Args: cobra.NoArgs, RunE: runE(o)}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: json or yaml")
	registerCompletions(cmd, map[string]cobra.CompletionFunc{"output": completeValues(versionFormats...)})
	return cmd
}

// Complete takes the command's output: version has no arguments.
func (o *versionOptions) Complete(cmd *cobra.Command, _ []string) error {
	o.out = cmd.OutOrStdout()
	return nil
}

// Validate rejects output formats other than "", "json" and "yaml".
func (o *versionOptions) Validate() error {
	return validateOutput("version", o.output, versionFormats...)
}

// Run prints the version.
func (o *versionOptions) Run(context.Context) error {
	info := version.Get()
	if structured(o.output) {
		return termsafe.WriteJSON(documentWriter(o.out, o.output), info)
	}
	_, err := fmt.Fprintf(o.out, "kubectl-graceful %s (commit %s, built %s, %s, %s)\n",
		info.Version, info.Commit, info.Date, info.GoVersion, info.Platform)
	return err
}

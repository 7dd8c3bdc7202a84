package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/version"
)

// versionOptions prints the plugin's own stamped version; it never contacts
// the cluster.
type versionOptions struct {
	// output is "" for one line, "json" or "yaml".
	output string

	genericiooptions.IOStreams
}

// newCmdVersion builds `kubectl graceful version`.
func newCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	o := &versionOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version",
		Args:  cobra.NoArgs,
		RunE:  runE(o),
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: json or yaml")
	registerCompletions(cmd, map[string]cobra.CompletionFunc{"output": completeValues(versionFormats...)})
	return cmd
}

// Complete has nothing to take: version has no arguments.
func (o *versionOptions) Complete(*cobra.Command, []string) error { return nil }

// Validate rejects output formats other than "", "json" and "yaml".
func (o *versionOptions) Validate() error {
	return validateOutput("version", o.output, versionFormats...)
}

// versionFormats are version's -o values ("" for one line).
var versionFormats = []string{"", "json", "yaml"}

// Run prints the version.
func (o *versionOptions) Run(context.Context) error {
	info := version.Get()
	if structured(o.output) {
		enc := json.NewEncoder(documentWriter(o.Out, o.output))
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	_, err := fmt.Fprintf(o.Out, "kubectl-graceful %s (commit %s, built %s, %s, %s)\n",
		info.Version, info.Commit, info.Date, info.GoVersion, info.Platform)
	return err
}

package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/version"
)

// VersionOptions prints the plugin's own stamped version; it never contacts
// the cluster.
type VersionOptions struct {
	// Output is "" for one line, "json" or "yaml".
	Output string

	genericiooptions.IOStreams
}

// NewCmdVersion builds `kubectl graceful version`.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	o := &VersionOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json or yaml")
	registerCompletions(cmd, map[string]cobra.CompletionFunc{"output": completeValues(versionFormats...)})
	return cmd
}

// Validate rejects output formats other than "", "json" and "yaml".
func (o *VersionOptions) Validate() error {
	return validateOutput("version", o.Output, versionFormats...)
}

// versionFormats are version's -o values ("" for one line).
var versionFormats = []string{"", "json", "yaml"}

// Run prints the version.
func (o *VersionOptions) Run() error {
	info := version.Get()
	if structured(o.Output) {
		enc := json.NewEncoder(documentWriter(o.Out, o.Output))
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	_, err := fmt.Fprintf(o.Out, "kubectl-graceful %s (commit %s, built %s, %s, %s)\n",
		info.Version, info.Commit, info.Date, info.GoVersion, info.Platform)
	return err
}

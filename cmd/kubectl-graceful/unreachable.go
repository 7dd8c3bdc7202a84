package main

import (
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
)

// wordUnreachable makes every command under root end with
// cliutil.Unreachable's line when the cluster did not answer, wherever the
// command noticed it (a lookup, a watch, the REST mapper's discovery).
// Errors that already say so (audit's, per context) and exit codes other
// than 1 are left as they are.
func wordUnreachable(root *cobra.Command, flags *genericclioptions.ConfigFlags) {
	if run := root.RunE; run != nil {
		root.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			if !cliutil.NoAnswer(err) || cliutil.CodeOf(err) != cliutil.ExitError ||
				strings.Contains(err.Error(), cliutil.UnreachablePrefix) {
				return err
			}
			server := ""
			if cfg, cfgErr := flags.ToRESTConfig(); cfgErr == nil {
				server = cfg.Host
			}
			return cliutil.Unreachable(contextName(flags), server, err)
		}
	}
	for _, c := range root.Commands() {
		wordUnreachable(c, flags)
	}
}

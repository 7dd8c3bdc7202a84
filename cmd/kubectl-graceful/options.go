package main

import (
	"context"

	"github.com/spf13/cobra"
)

// options is every command's shape, as kubectl's commands and
// sample-cli-plugin have it: Complete fills what the flags do not give from
// the arguments and the environment, Validate refuses bad input before
// anything is sent to the cluster, Run does the work.
type options interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE is every command's RunE: Complete, Validate, then Run with the
// command's context (cancelled on SIGINT/SIGTERM, interrupt.go).
func runE(o options) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

// argsWithin is the Args of a command that takes least to most arguments:
// any other number is errMissingArg(what, usage).
func argsWithin(least, most int, what, usage string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < least || len(args) > most {
			return errMissingArg(what, usage)
		}
		return nil
	}
}

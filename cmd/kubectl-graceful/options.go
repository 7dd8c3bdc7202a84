package main

import (
	"context"

	"github.com/spf13/cobra"
)

// options is the shape of a command's options, as kubectl's commands have
// it: Complete fills what the flags and arguments leave (the client),
// Validate refuses bad input before anything is read, Run does the work.
type options interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE is the RunE of a command with options o.
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

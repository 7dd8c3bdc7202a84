package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// groupOf makes cmd a command that only groups subcommands: bare, it
// prints its help (exit 0, as kubectl's group commands do); with an
// argument that names no subcommand it fails in one line (exit 1) with
// the closest subcommand, or with hint(arg) where there is none. Cobra's
// own handling prints the help and exits 0 for any argument below the
// root, so `kubectl graceful drain NODE` drained nothing and "succeeded".
// With a hint, a flag error (a flag of the subcommand the user left out:
// `drain NODE --ignore-daemonsets`) says which subcommands take flags.
func groupOf(cmd *cobra.Command, hint func(arg string) string) *cobra.Command {
	if hint != nil {
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			return fmt.Errorf("%v for %q: the flags belong to a subcommand, as in %s", err, c.CommandPath(), hint("NAME"))
		})
	}
	cmd.SuggestionsMinimumDistance = 2 // cobra's default, which SuggestionsFor does not apply itself
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			return fmt.Errorf("%s: did you mean %q?", msg, s[0])
		}
		if hint != nil {
			msg += ": did you mean " + hint(args[0]) + "?"
		}
		return fmt.Errorf("%s", msg)
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return cmd
}

package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// AuditExplainOptions is `audit explain [ID]`: one check's explanation,
// or with no ID the list of checks.
type AuditExplainOptions struct {
	// ID is the check to explain; "" lists them all.
	ID string

	genericiooptions.IOStreams
}

func newCmdAuditExplain(streams genericiooptions.IOStreams) *cobra.Command {
	o := &AuditExplainOptions{IOStreams: streams}
	return &cobra.Command{
		Use:               "explain [ID]",
		Short:             "Explain a check: why it matters, how to fix it, its source (no ID: list checks)",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeExplainID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
}

// Complete takes the ID from the arguments.
func (o *AuditExplainOptions) Complete(args []string) error {
	if len(args) == 1 {
		o.ID = args[0]
	}
	return nil
}

// Validate refuses an ID no check has, as --skip does.
func (o *AuditExplainOptions) Validate() error {
	if o.ID == "" {
		return nil
	}
	return validateIDs([]string{o.ID})
}

// Run prints the check's explanation, or the list of checks.
func (o *AuditExplainOptions) Run(context.Context) error {
	if o.ID == "" {
		for _, c := range inspect.Checks() {
			if _, err := fmt.Fprintf(o.Out, "%-32s %-8s %s\n", c.ID, c.Severity, c.Summary); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := fmt.Fprint(o.Out, explainText(inspect.Lookup(o.ID)))
	return err
}

// explainText is the text of `audit explain ID` for check c.
func explainText(c *inspect.Check) string {
	d := c.Explanation
	return fmt.Sprintf("%s (default severity %s)\n\n%s\n\nWhy it matters:\n  %s\n\nHow to fix:\n  %s\n\nSource:\n  %s\n\nSuppress: annotate the object with %s: %q, or pass --skip %s\n",
		c.ID, c.Severity, c.Summary, d.Why, d.Fix, d.Source, inspect.SkipAnnotation, c.ID, c.ID)
}

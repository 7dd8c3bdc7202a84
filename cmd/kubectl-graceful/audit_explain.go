package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// auditExplainOptions is `audit explain [ID]`: one check's explanation,
// or with no ID the list of checks.
type auditExplainOptions struct {
	// id is the check to explain; "" lists them all.
	id  string
	out io.Writer
}

func newCmdAuditExplain() *cobra.Command {
	o := &auditExplainOptions{}
	return &cobra.Command{
		Use:               "explain [ID]",
		Short:             "Explain a check: why it matters, how to fix it, its source (no ID: list checks)",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeExplainID,
		RunE:              runE(o),
	}
}

// Complete takes the ID from the arguments, and the command's output.
func (o *auditExplainOptions) Complete(cmd *cobra.Command, args []string) error {
	o.out = cmd.OutOrStdout()
	if len(args) == 1 {
		o.id = args[0]
	}
	return nil
}

// Validate refuses an ID no check has, as --skip does.
func (o *auditExplainOptions) Validate() error {
	if o.id == "" {
		return nil
	}
	return validateIDs([]string{o.id})
}

// Run prints the check's explanation, or the list of checks.
func (o *auditExplainOptions) Run(context.Context) error {
	if o.id == "" {
		for _, c := range inspect.Checks() {
			if _, err := fmt.Fprintf(o.out, "%-32s %-8s %s\n", c.ID, c.Severity, c.Summary); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := fmt.Fprint(o.out, explainText(inspect.Lookup(o.id)))
	return err
}

// explainText is the text of `audit explain ID` for check c.
func explainText(c *inspect.Check) string {
	d := c.Explanation
	return fmt.Sprintf("%s (default severity %s)\n\n%s\n\nWhy it matters:\n  %s\n\nHow to fix:\n  %s\n\nSource:\n  %s\n\nSuppress: annotate the object with %s: %q, or pass --skip %s\n",
		c.ID, c.Severity, c.Summary, d.Why, d.Fix, d.Source, inspect.SkipAnnotation, c.ID, c.ID)
}

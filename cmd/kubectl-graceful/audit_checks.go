package main

import (
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// parseFailOn parses a --fail-on value: error, warning, info or none. It
// returns the lowest severity that fails the audit ("" for none).
func parseFailOn(s string) (inspect.Severity, error) {
	switch s {
	case "error", "warning", "info":
		return inspect.Severity(s), nil
	case "none":
		return "", nil
	}
	return "", errNotOneOf("--fail-on", s, failOnValues...)
}

// failOnValues are --fail-on's values, colorValues --color's.
var (
	failOnValues = []string{"error", "warning", "info", "none"}
	colorValues  = []string{"auto", "always", "never"}
)

// validateIDs returns an error naming the first unknown check ID, and the
// closest ID when it looks like a typo of one.
func validateIDs(ids []string) error {
	for _, id := range ids {
		if inspect.Lookup(id) == nil {
			return fmt.Errorf("unknown check %q%s (kubectl graceful audit explain lists the checks)", id, didYouMean(id, checkIDs()))
		}
	}
	return nil
}

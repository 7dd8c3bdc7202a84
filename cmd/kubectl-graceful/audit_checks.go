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
	return "", fmt.Errorf("--fail-on %q is not one of error, warning, info, none", s)
}

// validateIDs returns an error naming the first unknown check ID.
func validateIDs(ids []string) error {
	for _, id := range ids {
		if inspect.Lookup(id) == nil {
			return fmt.Errorf("unknown check %q (see `kubectl graceful audit explain` for the list)", id)
		}
	}
	return nil
}

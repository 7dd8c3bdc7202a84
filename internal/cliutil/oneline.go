package cliutil

import (
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// OneLine folds a multi-line error message into one line, so that every
// failure reaches the user as the single line README.md promises, and
// escapes what is left (termsafe.Escape): error messages quote the
// cluster (an admission webhook's or a ValidatingAdmissionPolicy's denial,
// object names), so they may hold escape sequences.
func OneLine(s string) string {
	return termsafe.Escape(strings.Join(strings.Fields(s), " "))
}

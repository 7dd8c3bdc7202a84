package cliutil

import "strings"

// OneLine folds a multi-line error message into one line, so that every
// failure reaches the user as the single line README.md promises.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

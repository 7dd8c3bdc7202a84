package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// validateOutput returns an error unless value (-o, --output) is one of
// formats, the formats command supports; "" among them means the flag may
// be left out.
func validateOutput(command, value string, formats ...string) error {
	if slices.Contains(formats, value) {
		return nil
	}
	named := slices.DeleteFunc(slices.Clone(formats), func(f string) bool { return f == "" })
	use := strings.Join(named, ", ")
	if slices.Contains(formats, "") {
		use += ", or leave it out"
	}
	return fmt.Errorf("--output %q is not supported for %s: use %s%s", value, command, use, didYouMean(value, named))
}

// structured reports whether format is one of the documents kubectl pairs
// on every command, json or yaml, rather than text for people.
func structured(format string) bool { return format == "json" || format == "yaml" }

// documentWriter is where a command writes its JSON for format: out itself
// for json, a writer turning each JSON value into a YAML document for
// yaml (the same fields, as kubectl's -o yaml mirrors its -o json).
func documentWriter(out io.Writer, format string) io.Writer {
	if format == "yaml" {
		return termsafe.YAMLStream(out)
	}
	return out
}

// watchOutcome ends every watch command: the summary is rendered first
// (a partial timeline is still worth showing), then an error of the
// follow wins (exit 1), then a risk the verdict found (exit 2).
func watchOutcome(renderErr, followErr error, risk bool) error {
	switch {
	case renderErr != nil:
		return renderErr
	case followErr != nil:
		return followErr
	case risk:
		return cliutil.Risk()
	}
	return nil
}

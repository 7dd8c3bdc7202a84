// Package render writes what pkg/drain reports, for `kubectl graceful drain
// node`: the preflight (preflight.go), the live progress while pods are
// evicted (progress.go), each node's summary (summary.go), all three tied
// together as a drain.Events (text.go); -o json is the drain's result as
// it is (termsafe.WriteJSON). Renderers take an io.Writer and say whether
// it is a terminal and how wide only when told: the command detects the
// terminal.
package render

package timeline

import "io"

// Test helpers of this package, exported to the tests of the renderers
// (package timeline_test), which read timelines built the same way.
var (
	At = at
)

// The renderers live in pkg/timeline/render, which imports this package, so
// this package's own tests reach them through these, set by the renderers'
// tests (render_test.go) before any test runs.
var (
	WriteVerdictForTest func(io.Writer, *Timeline, Verdict) error
	WriteGapLineForTest func(io.Writer, *Timeline, Gap) error
)

// Package render writes what pkg/timeline records, for `kubectl graceful
// watch pod`: a line per change as it happens (PodLinePrinter,
// PodJSONPrinter and their rollout and node counterparts, each a struct of
// the library's callbacks), then the two-lane chart, the verdict, the JSON
// summary or a Mermaid gantt chart. Renderers take an io.Writer; they never look at
// the terminal themselves.
package render

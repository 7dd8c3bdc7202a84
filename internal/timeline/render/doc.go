// Package render writes what pkg/timeline records, for `kubectl graceful
// watch pod`: a line per change as it happens (LinePrinter, JSONPrinter, both
// timeline.Printer), then the two-lane chart, the verdict, the JSON summary
// or a Mermaid gantt chart. Renderers take an io.Writer; they never look at
// the terminal themselves.
package render

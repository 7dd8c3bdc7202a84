// Package listwatch lists then watches Kubernetes objects for the watches
// of the plugin (watch pod, watch TYPE/NAME, watch node, drain): a Stream
// reports each List, watch event and lost or regained connection as a
// Notice of one Kind, and a Hub shares one Stream among the readers of a
// process, starting a late reader from what the Stream holds.
//
// It is client-go's list-then-watch (tools/cache.ListWatch, the
// RetryWatcher of tools/watch) with what an informer keeps to itself made
// visible: every gap in a watch is reported, never hidden. See
// ARCHITECTURE.md.
package listwatch

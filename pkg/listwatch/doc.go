// Package listwatch lists then watches Kubernetes objects for the watches
// of the plugin (watch pod, watch TYPE/NAME, watch node, drain): a Stream
// reports each List, watch event and lost or regained connection as a
// Notice of one Kind, and a Hub shares one Stream among the readers of a
// process, starting a late reader from what the Stream holds.
//
// It reads a watch as client-go's reflector does (tools/cache.ListWatch;
// one goroutine sees every event and the watch's end; resumption from the
// last resourceVersion, bookmarks included; a re-list after 410 Gone)
// with what an informer keeps to itself made visible: every gap in a
// watch is reported in its place among the events, never hidden. See
// ARCHITECTURE.md.
package listwatch

package harness

import "github.com/kubectl-graceful/kubectl-graceful/internal/e2e"

// The requests a command sent itself, read from its client-go -v 6 log.
// The API server's counts (drainRequests) cannot tell clients apart: in the
// window of a drain they also hold the controllers' requests (the node
// lifecycle controller's GET and PATCH of each cordoned node, the API
// server's own periodic reads of the default Service's endpoints and of
// the system namespaces), which grow with the drain's wall time, not with
// what the drain sends.

// clientRequests counts the requests in a command's client-go -v 6 log
// (its stderr) by "VERB resource" (or "VERB resource/subresource"), the
// keys drainRequests uses (e2e.ClientRequests reads the log).
func clientRequests(log string) requestCounts {
	out := requestCounts{}
	for _, r := range e2e.ClientRequests(log) {
		out[r.Kind()] += int64(r.Count)
	}
	return out
}

package harness

import (
	"net/url"
	"regexp"
	"strings"
)

// The requests a command sent itself, read from its client-go -v 6 log.
// The API server's counts (drainRequests) cannot tell clients apart: in the
// window of a drain they also hold the controllers' requests (the node
// lifecycle controller's GET and PATCH of each cordoned node, the API
// server's own periodic reads of the default Service's endpoints and of
// the system namespaces), which grow with the drain's wall time, not with
// what the drain sends.

// clientResponse matches client-go's -v 6 log of one response: its verb
// and URL.
var clientResponse = regexp.MustCompile(`verb="([A-Z]+)" url="([^"]*)"`)

// clientStatus matches the status of a logged response.
var clientStatus = regexp.MustCompile(`status="[^"]*"`)

// plainResponse matches the unstructured -v 6 line of one response that
// older client-go (kubectl v1.32's) writes once per request:
// `round_trippers.go:560] GET https://host/api/v1/nodes 200 OK in 2 milliseconds`.
var plainResponse = regexp.MustCompile(`round_trippers\.go:\d+\] ([A-Z]+) (\S+) \d{3} .* in \d+ milliseconds`)

// clientRequests counts the requests in a command's client-go -v 6 log
// (its stderr) by "VERB resource" (or "VERB resource/subresource"), the
// keys drainRequests uses. client-go v0.37 logs some responses twice, not
// always on adjacent lines: a request line (verb, URL and status) seen n
// times is (n+1)/2 requests, as the small-pool e2e counts them; an older
// client-go's unstructured line is one request.
func clientRequests(log string) requestCounts {
	seen := map[string]int{}
	out := requestCounts{}
	for _, line := range strings.Split(log, "\n") {
		if m := clientResponse.FindString(line); m != "" && strings.Contains(line, "status=") {
			seen[m+" "+clientStatus.FindString(line)]++
		} else if m := plainResponse.FindStringSubmatch(line); m != nil {
			out[requestKind(m[1], m[2])]++
		}
	}
	for line, n := range seen {
		m := clientResponse.FindStringSubmatch(line)
		out[requestKind(m[1], m[2])] += int64((n + 1) / 2)
	}
	return out
}

// requestKind is the API server's verb and resource of a request to raw
// with the HTTP verb: "LIST pods" for a GET of /api/v1/namespaces/ns/pods,
// "WATCH pods" with watch=true, "POST pods/eviction" for
// /api/v1/namespaces/ns/pods/p/eviction, "GET namespaces" for
// /api/v1/namespaces/ns; the path itself for discovery and other
// non-resource paths.
func requestKind(verb, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return verb + " " + raw
	}
	resource, collection := resourceOf(u.Path)
	switch {
	case verb == "GET" && u.Query().Get("watch") == "true":
		verb = "WATCH"
	case verb == "GET" && collection:
		verb = "LIST"
	}
	return verb + " " + resource
}

// resourceOf is the resource (and subresource) path names, and whether it
// names a collection.
func resourceOf(path string) (string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return path, false
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	switch len(parts) {
	case 1:
		return parts[0], true
	case 2:
		return parts[0], false
	default:
		return parts[0] + "/" + parts[2], false
	}
}

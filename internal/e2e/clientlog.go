package e2e

import (
	"cmp"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// ClientRequest is one kind of request a command sent, read from its
// client-go -v 6 log: the HTTP verb, the URL, the response's status, and
// how many were sent.
type ClientRequest struct {
	Verb, URL, Status string
	Count             int
}

// structuredResponse matches client-go v0.37's -v 6 line of one response:
// `"Response" verb="GET" url="https://..." status="200 OK" milliseconds=3`.
var structuredResponse = regexp.MustCompile(`verb="([A-Z]+)" url="([^"]*)" status="([^"]*)"`)

// plainResponse matches the unstructured -v 6 line of one response that an
// older client-go (kubectl v1.32's) writes once per request:
// `round_trippers.go:560] GET https://host/api/v1/nodes 200 OK in 2 milliseconds`.
var plainResponse = regexp.MustCompile(`round_trippers\.go:\d+\] ([A-Z]+) (\S+) (\d{3} .*) in \d+ milliseconds`)

// ClientRequests reads the requests of a client-go -v 6 log (a command's
// stderr), in the order of their URLs. client-go v0.37 logs some responses
// twice, not always on adjacent lines and with their milliseconds measured
// twice: a verb, URL and status seen n times is (n+1)/2 requests; an older
// client-go's unstructured line is one request. "Request" lines, which
// carry no status, are not counted.
func ClientRequests(log string) []ClientRequest {
	type key struct{ verb, url, status string }
	structured, plain := map[key]int{}, map[key]int{}
	for _, line := range strings.Split(log, "\n") {
		if m := structuredResponse.FindStringSubmatch(line); m != nil {
			structured[key{m[1], m[2], m[3]}]++
		} else if m := plainResponse.FindStringSubmatch(line); m != nil {
			plain[key{m[1], m[2], m[3]}]++
		}
	}
	var out []ClientRequest
	for k, n := range structured {
		out = append(out, ClientRequest{Verb: k.verb, URL: k.url, Status: k.status, Count: (n + 1) / 2})
	}
	for k, n := range plain {
		out = append(out, ClientRequest{Verb: k.verb, URL: k.url, Status: k.status, Count: n})
	}
	slices.SortFunc(out, func(a, b ClientRequest) int {
		return cmp.Or(strings.Compare(a.URL, b.URL), strings.Compare(a.Verb, b.Verb), strings.Compare(a.Status, b.Status))
	})
	return out
}

// Kind is the API server's verb and resource of the request, as its audit
// and metrics name them: "LIST pods" for a GET of
// /api/v1/namespaces/ns/pods, "WATCH pods" with watch=true, "POST
// pods/eviction" for /api/v1/namespaces/ns/pods/p/eviction, "GET
// namespaces" for /api/v1/namespaces/ns; the path itself for discovery and
// other non-resource paths.
func (r ClientRequest) Kind() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return r.Verb + " " + r.URL
	}
	resource, collection := resourceOf(u.Path)
	verb := r.Verb
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

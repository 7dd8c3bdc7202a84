package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// resourceRequests returns the apiserver's count of read requests on
// resources so far: the sum of apiserver_request_total (from its /metrics
// endpoint) over verbs GET, LIST and WATCH, leaving out Leases (leader
// election and node heartbeats read them all the time), subresources (the
// HPA controller reads every target's /scale every 15 s: about 7 requests a
// second with the default fixture's 100 HPAs) and non-resource paths
// (discovery, /metrics itself). A child process's own requests are the
// difference between two readings taken just before and after it, while the
// harness itself does nothing else.
func resourceRequests(ctx context.Context, cs kubernetes.Interface) (int64, error) {
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, err
	}
	return sumReadRequests(raw), nil
}

// namespacedWatches returns the apiserver's count of WATCH requests on
// namespaced lists (apiserver_request_total, verb WATCH, scope namespace):
// the controllers and kwok watch whole resources across the cluster (scope
// cluster), so during a benchmark these are the command's own watches.
func namespacedWatches(ctx context.Context, cs kubernetes.Interface) (int64, error) {
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, err
	}
	return sumRequests(raw, func(l map[string]string) bool { return l["verb"] == "WATCH" && l["scope"] == "namespace" }), nil
}

// sumReadRequests parses Prometheus text exposition and sums the
// apiserver_request_total samples resourceRequests counts.
func sumReadRequests(raw []byte) int64 { return sumRequests(raw, readRequest) }

// readRequest keeps the samples resourceRequests counts.
func readRequest(l map[string]string) bool {
	switch l["verb"] {
	case "GET", "LIST", "WATCH":
	default:
		return false
	}
	return l["resource"] != "" && l["resource"] != "leases" && l["subresource"] == ""
}

// drainRequests returns the apiserver's count so far of the requests a
// node drain makes, reads and writes: the reads resourceRequests counts,
// evictions (verb POST on the pods/eviction subresource, which no
// controller calls) and writes to Node objects themselves (PATCH or
// PUT with no subresource: the cordon; kwok's heartbeats write
// nodes/status and Leases). The controllers' own writes that follow an
// eviction (the replacement pods, their binding and status, the
// EndpointSlices, kwok's pod deletion) are left out: they are the same
// whoever evicts. The node lifecycle controller's unschedulable taint
// (one PATCH per cordoned node) is counted for every tool alike.
func drainRequests(ctx context.Context, cs kubernetes.Interface) (requestCounts, error) {
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return drainRequestCounts(raw), nil
}

// requestCounts are apiserver_request_total sums by "VERB resource" (or
// "VERB resource/subresource").
type requestCounts map[string]int64

// total is the sum over every kind.
func (c requestCounts) total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// minus returns the growth of each kind since before.
func (c requestCounts) minus(before requestCounts) requestCounts {
	d := requestCounts{}
	for k, v := range c {
		if v > before[k] {
			d[k] = v - before[k]
		}
	}
	return d
}

// clients is total less the API server's own requests: for each eviction
// it handles, refused ones included, it lists the pod's namespace's PDBs
// through its loopback client (pkg/registry/core/pod/storage/eviction.go),
// counted in apiserver_request_total as a LIST. Call it on a difference
// (minus), not on counts since the server started.
func (c requestCounts) clients() int64 {
	return c.total() - min(c["LIST poddisruptionbudgets"], c["POST pods/eviction"])
}

// top returns the n largest kinds, "GET pods 12, POST pods/eviction 5",
// for the log.
func (c requestCounts) top(n int) string {
	type kv struct {
		k string
		v int64
	}
	var d []kv
	for k, v := range c {
		d = append(d, kv{k, v})
	}
	sort.Slice(d, func(i, j int) bool { return d[i].v > d[j].v || d[i].v == d[j].v && d[i].k < d[j].k })
	var parts []string
	for i := 0; i < len(d) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s %d", d[i].k, d[i].v))
	}
	return strings.Join(parts, ", ")
}

// drainRequestCounts sums, by kind, the apiserver_request_total samples
// drainRequests counts.
func drainRequestCounts(raw []byte) requestCounts {
	c := requestCounts{}
	eachRequest(raw, func(l map[string]string, v int64) {
		if drainRequest(l) {
			kind := l["verb"] + " " + l["resource"]
			if l["subresource"] != "" {
				kind += "/" + l["subresource"]
			}
			c[kind] += v
		}
	})
	return c
}

// drainRequest keeps the samples drainRequests counts.
func drainRequest(l map[string]string) bool {
	switch l["verb"] {
	case "POST":
		return l["resource"] == "pods" && l["subresource"] == "eviction"
	case "PATCH", "PUT":
		return l["resource"] == "nodes" && l["subresource"] == ""
	}
	return readRequest(l)
}

// sumRequests sums the apiserver_request_total samples whose labels keep
// accepts.
func sumRequests(raw []byte, keep func(map[string]string) bool) int64 {
	var total int64
	eachRequest(raw, func(l map[string]string, v int64) {
		if keep(l) {
			total += v
		}
	})
	return total
}

// eachRequest calls f with the labels and value of every
// apiserver_request_total sample in raw (Prometheus text exposition).
func eachRequest(raw []byte, f func(map[string]string, int64)) {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err == nil {
			f(parseLabels(line[len("apiserver_request_total{"):end]), int64(v))
		}
	}
}

// parseLabels splits `a="x",b="y"` (label values here hold no quotes or commas).
func parseLabels(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			m[k] = strings.Trim(v, `"`)
		}
	}
	return m
}

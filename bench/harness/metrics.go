package harness

import (
	"bufio"
	"bytes"
	"context"
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
func sumReadRequests(raw []byte) int64 {
	return sumRequests(raw, func(l map[string]string) bool {
		switch l["verb"] {
		case "GET", "LIST", "WATCH":
		default:
			return false
		}
		return l["resource"] != "" && l["resource"] != "leases" && l["subresource"] == ""
	})
}

// sumRequests sums the apiserver_request_total samples whose labels keep
// accepts.
func sumRequests(raw []byte, keep func(map[string]string) bool) int64 {
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 || !keep(parseLabels(line[len("apiserver_request_total{"):end])) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err == nil {
			total += int64(v)
		}
	}
	return total
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

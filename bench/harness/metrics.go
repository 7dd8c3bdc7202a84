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

// sumReadRequests parses Prometheus text exposition and sums the
// apiserver_request_total samples resourceRequests counts.
func sumReadRequests(raw []byte) int64 {
	var total int64
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
		labels := parseLabels(line[len("apiserver_request_total{"):end])
		switch labels["verb"] {
		case "GET", "LIST", "WATCH":
		default:
			continue
		}
		if labels["resource"] == "" || labels["resource"] == "leases" || labels["subresource"] != "" {
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

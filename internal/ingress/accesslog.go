package ingress

import (
	"bufio"
	"encoding/json"
	"io"
	"net/url"
	"strconv"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// accessLine is the part of a line of Traefik's JSON access log that
// tells where the proxy sent a request (docs/ingress.md, "Which failures the proxy made").
type accessLine struct {
	RequestPath string
	ServiceAddr string
}

// ReadAccessLog reads Traefik's JSON access log (--accesslog.format=json)
// and returns, for each request marked with param (the probe's
// probe.MarkParam, its start in Unix nanoseconds), what the proxy did with
// it. Lines that are not JSON or carry no mark (Traefik's own log, other
// clients' requests) are skipped; the error is the reader's.
func ReadAccessLog(r io.Reader, param string) (map[int64]probe.ProxyRecord, error) {
	out := map[int64]probe.ProxyRecord{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		var l accessLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		u, err := url.ParseRequestURI(l.RequestPath)
		if err != nil {
			continue
		}
		if mark, err := strconv.ParseInt(u.Query().Get(param), 10, 64); err == nil {
			out[mark] = probe.ProxyRecord{Logged: true, Upstream: l.ServiceAddr}
		}
	}
	return out, sc.Err()
}

// Attribute sets the Proxy record of each failed result from records
// (ReadAccessLog), keyed by the result's start; a failure with no record
// gets one that says it was not logged.
func Attribute(results []probe.Result, records map[int64]probe.ProxyRecord) {
	for i := range results {
		if results[i].Failed() {
			rec := records[results[i].Start.UnixNano()]
			results[i].Proxy = &rec
		}
	}
}

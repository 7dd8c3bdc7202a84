package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
)

func TestWatchPodValidateProbeFlags(t *testing.T) {
	cases := []struct {
		name string
		edit func(p *probeFlags)
		want string // "" = valid
	}{
		{"no probe", func(p *probeFlags) {}, ""},
		{"probe", func(p *probeFlags) { p.url = "https://shop.example.com/healthz" }, ""},
		{"header", func(p *probeFlags) { p.url, p.headers = "http://10.0.0.1/", []string{"Host: shop.example.com"} }, ""},
		{"malformed", func(p *probeFlags) { p.url = "http://[::1" }, "is not a URL"},
		{"scheme", func(p *probeFlags) { p.url = "ftp://shop.example.com/" }, `unsupported scheme "ftp"`},
		{"no scheme", func(p *probeFlags) { p.url = "shop.example.com" }, "unsupported scheme"},
		{"rate 0", func(p *probeFlags) { p.url, p.rate = "http://x/", 0 }, "--probe-rate 0 is out of range: use 1 to 200"},
		{"rate 201", func(p *probeFlags) { p.url, p.rate = "http://x/", 201 }, "--probe-rate 201 is out of range"},
		{"timeout", func(p *probeFlags) { p.url, p.timeout = "http://x/", 0 }, "--probe-timeout 0s is not allowed"},
		{"bad header", func(p *probeFlags) { p.url, p.headers = "http://x/", []string{"nocolon"} }, `--probe-header "nocolon"`},
		{"rate alone", func(p *probeFlags) { p.rate = 50 }, "need --probe URL"},
		{"access log alone", func(p *probeFlags) { p.accessLog = "/var/log/traefik/access.log" }, "need --probe URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := watchPodOptions{watchFlags: watchFlags{settle: time.Second, propagation: 5 * time.Second,
				probe: probeFlags{rate: 20, timeout: 2 * time.Second}}, name: "web-0", gracePeriod: -1}
			c.edit(&o.probe)
			err := o.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestProbeLoopbackWarning(t *testing.T) {
	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	if w := loopbackWarning(u("http://127.0.0.1:8080/"), "https://api.prod.example.com:6443"); !strings.HasPrefix(w, "warning: ") || !strings.Contains(w, "port-forward") {
		t.Errorf("loopback probe of a remote cluster: %q", w)
	}
	if w := loopbackWarning(u("http://localhost:8080/"), "https://127.0.0.1:6443"); !strings.Contains(w, "local cluster") {
		t.Errorf("local cluster: %q", w)
	}
	if w := loopbackWarning(u("https://shop.example.com/"), "https://127.0.0.1:6443"); w != "" {
		t.Errorf("public URL: %q", w)
	}
}

// An URL that does not answer stops the command before anything starts.
func TestProbeStartRefusesAnUnreachableURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p := probeFlags{url: "http://" + addr + "/", rate: 20, timeout: time.Second, apiServer: "https://127.0.0.1:6443"}
	p.complete()
	if err := p.validate("watch pod"); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	pr, err := p.start(context.Background(), &errOut, true)
	if pr != nil || err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "nothing was deleted") {
		t.Errorf("start = %v, %v", pr, err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	p = probeFlags{url: srv.URL, rate: 50, timeout: time.Second, apiServer: "https://127.0.0.1:6443"}
	p.complete()
	pr, err = p.start(context.Background(), &errOut, false)
	if err != nil {
		t.Fatal(err)
	}
	b := <-pr.buckets
	pr.Stop()
	if len(b.Results) == 0 || b.Results[0].Failed() {
		t.Errorf("first bucket %+v", b)
	}
}

// A --probe-access-log that cannot be opened stops the command before
// anything is deleted; one that can is read from its end.
func TestProbeStartOpensTheAccessLogAtItsEnd(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	p := probeFlags{url: srv.URL + "/", rate: 20, timeout: time.Second, accessLog: filepath.Join(t.TempDir(), "missing.log")}
	p.complete()
	var errOut bytes.Buffer
	if pr, err := p.start(context.Background(), &errOut, false); pr != nil || err == nil || !strings.Contains(err.Error(), "--probe-access-log") {
		t.Fatalf("start with a missing log = %v, %v", pr, err)
	}
	p.accessLog = filepath.Join(t.TempDir(), "access.log")
	old := `{"DownstreamStatus":502,"OriginStatus":0,"RequestPath":"/?kubectl-graceful-probe=1","ServiceAddr":"10.0.0.9:80"}` + "\n"
	if err := os.WriteFile(p.accessLog, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	pr, err := p.start(context.Background(), &errOut, false)
	if err != nil {
		t.Fatal(err)
	}
	pr.Stop()
	results := []probe.Result{{Start: time.Unix(0, 1), Kind: probe.Status, Status: 502}}
	pr.attribute(results, &errOut)
	if rec := results[0].Proxy; rec == nil || rec.Logged {
		t.Errorf("a line from before the start was read: %+v", rec)
	}
}

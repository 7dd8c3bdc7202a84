package timeline

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// proxyService is Traefik's service of the pod's Service web as its API
// shows it: the pod's server (fenced or not, absent when nil) beside
// another pod's.
func proxyService(podFenced *bool) runtime.Object {
	servers := []ingress.Server{{URL: "http://10.0.0.9:8080"}}
	if podFenced != nil {
		servers = append(servers, ingress.Server{URL: "http://" + timelinetest.PodIP + ":8080", Fenced: *podFenced})
	}
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetGroupVersionKind(ingress.ServiceKind)
	o.SetName("shop-web-80@kubernetes")
	o.SetResourceVersion("1")
	var list []any
	for _, s := range servers {
		list = append(list, map[string]any{"url": s.URL, "fenced": s.Fenced})
	}
	o.Object["servers"] = list
	return o
}

// feedIngress plays the proxy's stream: the pod's server listed, then
// fenced at fencedMs and removed at removedMs (skipped when negative).
func feedIngress(fencedMs, removedMs int64) func(r *Recorder) {
	return func(r *Recorder) {
		r.Handle(listwatch.Notice{Stream: ingress.StreamName, Recv: at(-700), Kind: listwatch.KindList, Initial: true,
			List: []runtime.Object{proxyService(boolp(false))}})
		if fencedMs >= 0 {
			r.Handle(timelinetest.Watched(at(fencedMs), watch.Modified, proxyService(boolp(true))))
		}
		if removedMs >= 0 {
			r.Handle(timelinetest.Watched(at(removedMs), watch.Modified, proxyService(nil)))
		}
	}
}

// TestVerdictAgainstIngressController judges the stop against when the
// proxy stopped picking the pod, read from its API: before SIGTERM is a
// fact with the margin, after it by more than the poll is a race with the
// proxy (a risk, the window a race), within the poll cannot be told, and a
// proxy that never held the pod's server says so.
func TestVerdictAgainstIngressController(t *testing.T) {
	web := []string{"web"}
	cases := []struct {
		name    string
		tl      *Timeline
		risk    bool
		out     int64 // -1: none
		finding string
	}{
		{"fenced 2 s before SIGTERM", terminate(t, 30, true, 5, web, 6000, 0, feedIngress(3000, 5500)), false, 3000,
			"the Ingress controller stopped sending the pod new requests at +3000 ms (its API), 2000 ms before SIGTERM"},
		{"removed only, before SIGTERM", terminate(t, 30, true, 5, web, 6000, 0, feedIngress(-1, 900)), false, 900,
			"stopped sending the pod new requests at +900 ms"},
		{"fenced after SIGTERM: a race with the proxy", terminate(t, 30, true, 5, web, 5300, 0, feedIngress(6500, 7000)), true, 6500,
			"race with the Ingress controller: SIGTERM came by +5300 ms, at least 1200 ms before it stopped sending the pod new requests (fenced or removed at +6500 ms"},
		{"fenced within a poll of SIGTERM", terminate(t, 30, true, 5, web, 5300, 0, feedIngress(5080, -1)), false, 5080,
			"cannot tell whether SIGTERM (+5000 to +5300 ms) came before the Ingress controller stopped"},
		{"fenced after the estimate, inside a late exit's bounds", terminate(t, 30, true, 5, web, 9000, 0, feedIngress(6500, -1)), false, 6500,
			"cannot tell whether SIGTERM (+5000 to +9000 ms) came before the Ingress controller stopped sending the pod new requests: its API showed that at +6500 ms, read every 100 ms; the estimate (+5020 ms) is 1480 ms before it, which would be a race with the proxy"},
		{"still serving when the pod was gone", terminate(t, 30, true, 5, web, 6000, 0, feedIngress(-1, -1)), true, -1,
			"still picked the pod's server for new requests when the pod was gone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.tl.IngressAPI = "http://traefik:9000"
			v := compute(c.tl)
			if v.Risk != c.risk || !hasFinding(v, c.finding) {
				t.Errorf("risk = %v, want %v; want finding %q in:\n%s", v.Risk, c.risk, c.finding, strings.Join(v.Findings, "\n"))
			}
			checkMs(t, "ingress out", v.IngressOutMs, c.out)
			if c.risk && c.out >= 0 && !v.Raced() {
				t.Errorf("window %q, want a race", v.Window)
			}
		})
	}
	t.Run("a gap of the proxy's stream before its change: no race claimed", func(t *testing.T) {
		tl := terminate(t, 30, true, 5, web, 5300, 0, func(r *Recorder) {
			feedIngress(-1, -1)(r)
			r.Handle(listwatch.Notice{Stream: ingress.StreamName, Recv: at(4000), Kind: listwatch.KindGapOpen, Reason: "API down"})
			r.Handle(listwatch.Notice{Stream: ingress.StreamName, Recv: at(6500), Kind: listwatch.KindGapClose})
			r.Handle(timelinetest.Watched(at(6500), watch.Modified, proxyService(boolp(true))))
		})
		tl.IngressAPI = "http://traefik:9000"
		v := compute(tl)
		if v.Raced() || !hasFinding(v, "could not be read for a while before (a gap)") {
			t.Errorf("window %q; findings:\n%s", v.Window, strings.Join(v.Findings, "\n"))
		}
	})
	t.Run("no server of the pod", func(t *testing.T) {
		tl := terminate(t, 30, true, 5, web, 6000, 0, func(r *Recorder) {
			r.Handle(listwatch.Notice{Stream: ingress.StreamName, Recv: at(-700), Kind: listwatch.KindList, Initial: true,
				List: []runtime.Object{proxyService(nil)}})
		})
		tl.IngressAPI = "http://traefik:9000"
		if v := compute(tl); !hasFinding(v, "had no server at the pod's address") {
			t.Errorf("findings:\n%s", strings.Join(v.Findings, "\n"))
		}
	})
	t.Run("not read: no finding", func(t *testing.T) {
		tl := terminate(t, 30, true, 5, web, 6000, 0, feedIngress(3000, -1))
		if v := compute(tl); hasFinding(v, "Ingress controller") {
			t.Errorf("findings name the proxy without --ingress-api:\n%s", strings.Join(v.Findings, "\n"))
		}
	})
}

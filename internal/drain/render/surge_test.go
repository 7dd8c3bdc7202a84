package render

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

func TestSurgeLinesSayWhatTheEndpointWatchSaw(t *testing.T) {
	var b bytes.Buffer
	surgeSummary(&b, &drain.NodeResult{Surge: []drain.SurgeResult{
		{Namespace: "shop", Kind: "Deployment", Name: "web", Deployment: "web", RolledOut: true, DurationSeconds: 12, Services: []drain.ServiceEndpoints{
			{Service: "web", MinReady: ptr.To[int32](1)},
			{Service: "web-zero", MinReady: ptr.To[int32](0)},
			{Service: "web-gap", MinReady: ptr.To[int32](1), Unknown: "unknown: the EndpointSlice watch lost its connection"}}},
		{Namespace: "shop", Kind: "Deployment", Name: "api", Deployment: "api", Error: "deployment \"api\" exceeded its progress deadline", ServicesUnknown: "unknown: the Services could not be read: forbidden"},
		{Namespace: "shop", Kind: "Deployment", Name: "lone\x1b[2J", Deployment: "lone\x1b[2J", RolledOut: true, Services: []drain.ServiceEndpoints{}},
		{Namespace: "shop", Kind: "Rollout", Name: "cart", RolledOut: true, DurationSeconds: 3, Services: []drain.ServiceEndpoints{
			{Service: "cart", MinReady: ptr.To[int32](1)}}},
	}})
	out := b.String()
	for _, want := range []string{
		"surge: Deployment shop/web restarted and rolled out in 12s; Service web: Ready endpoints never reached zero (lowest 1)",
		"Service web-zero: Ready endpoints REACHED ZERO",
		"Service web-gap: Ready endpoints unknown: the EndpointSlice watch lost its connection",
		"surge: Deployment shop/api NOT rolled out: deployment \"api\" exceeded its progress deadline; Ready endpoints unknown: the Services could not be read",
		`shop/lone\x1b[2J restarted and rolled out in 0s; no Service selects its pods`,
		"surge: Rollout shop/cart restarted and rolled out in 3s; Service cart: Ready endpoints never reached zero (lowest 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A rollout that failed is followed by the evictions of its pods: the
	// Services' count covers the attempt only, and the line says so.
	b.Reset()
	surgeSummary(&b, &drain.NodeResult{Surge: []drain.SurgeResult{{Namespace: "shop", Kind: "Rollout", Name: "bgx",
		Error: "restarting Rollout shop/bgx: forbidden", Services: []drain.ServiceEndpoints{{Service: "bgx", MinReady: ptr.To[int32](1)}}}}})
	if want := "surge: Rollout shop/bgx NOT rolled out: restarting Rollout shop/bgx: forbidden; Service bgx: Ready endpoints did not reach zero " +
		"while --surge tried (lowest 1), not counting the evictions after"; !strings.Contains(b.String(), want) {
		t.Errorf("a failed rollout:\n%s\nwant %q", b.String(), want)
	}
	if strings.Contains(out, "web-gap: Ready endpoints never") {
		t.Errorf("a watch with a gap is taken as never at zero:\n%s", out)
	}
}

// As a rollout ends, one progress line says so; the record line with its
// Services' counts is the summary's alone, so it is printed once.
func TestSurgeRecordLineIsPrintedOnce(t *testing.T) {
	var b bytes.Buffer
	text := NewText(&b, false, 0)
	s := drain.SurgeResult{Namespace: "shop", Kind: "Deployment", Name: "web", RolledOut: true, DurationSeconds: 12,
		Services: []drain.ServiceEndpoints{{Service: "web", MinReady: ptr.To[int32](1)}}}
	text.SurgeDone("n1", s)
	Summary(&b, &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeDrained, EvictionsStarted: true, Surge: []drain.SurgeResult{s}}, 0)
	out := b.String()
	record := "surge: Deployment shop/web restarted and rolled out in 12s; Service web: Ready endpoints never reached zero (lowest 1)"
	if n := strings.Count(out, record); n != 1 {
		t.Errorf("the record line is printed %d times, want once:\n%s", n, out)
	}
	if want := "surge: Deployment shop/web rolled out in 12s; evicting the node's pods next"; !strings.Contains(out, want) {
		t.Errorf("no progress line %q:\n%s", want, out)
	}
}

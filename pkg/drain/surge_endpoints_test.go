package drain

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/capacity"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// slice is an EndpointSlice of service with one endpoint per pod UID,
// ready as given.
func slice(name, service string, ready map[string]bool) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}}}
	for uid, r := range ready {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{uid},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(r)}, TargetRef: &corev1.ObjectReference{UID: types.UID(uid)}})
	}
	return s
}

func TestEndpointWatchKeepsTheLowestReadyCount(t *testing.T) {
	now := time.Now()
	newWatch := func() (*endpointWatch, *capacity.Tracker) {
		w := &endpointWatch{min: map[string]int32{}, unknown: map[string]string{}, done: make(chan struct{}), names: []string{"web"}}
		close(w.done)
		return w, capacity.NewTracker(w.names, capacity.DesiredReadyAtStart)
	}
	ev := func(s *discoveryv1.EndpointSlice) listwatch.Notice {
		return listwatch.Notice{Recv: now, Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: s}}
	}
	listed := listwatch.Notice{Recv: now, Kind: listwatch.KindList, Initial: true, List: []runtime.Object{slice("a", "web", map[string]bool{"old": true})}}

	// A surge: the new pod Ready first, then the old one leaves.
	w, tr := newWatch()
	for _, n := range []listwatch.Notice{listed,
		ev(slice("a", "web", map[string]bool{"old": true, "new": false})),
		ev(slice("a", "web", map[string]bool{"old": true, "new": true})),
		ev(slice("a", "web", map[string]bool{"old": false, "new": true})),
		ev(slice("a", "web", map[string]bool{"new": true}))} {
		w.notice(tr, n)
	}
	if got := w.wait(); len(got) != 1 || !got[0].NeverZero() || *got[0].MinReady != 1 {
		t.Fatalf("surge: %+v, want never zero, lowest 1", got)
	}

	// An eviction: the old pod leaves before the new one is Ready.
	w, tr = newWatch()
	for _, n := range []listwatch.Notice{listed,
		ev(slice("a", "web", map[string]bool{"old": false})),
		ev(slice("a", "web", map[string]bool{"new": true}))} {
		w.notice(tr, n)
	}
	if got := w.wait(); got[0].NeverZero() || got[0].MinReady == nil || *got[0].MinReady != 0 {
		t.Fatalf("eviction: %+v, want lowest 0", got)
	}

	// A gap: what happened in it is unknown, never "never zero".
	w, tr = newWatch()
	for _, n := range []listwatch.Notice{listed, {Recv: now, Kind: listwatch.KindGapOpen}, {Recv: now, Kind: listwatch.KindGapClose}} {
		w.notice(tr, n)
	}
	if got := w.wait(); got[0].NeverZero() || got[0].Unknown == "" {
		t.Fatalf("gap: %+v, want unknown", got)
	}
}

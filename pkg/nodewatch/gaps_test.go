package nodewatch

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// A node's pods' watch cut and resumed is one gap, from the cut to the
// resumption, marked on that node's pods only and kept in the summary
// beside the shared streams' gaps.
func TestNodeGapOnThatNodesPodsOnly(t *testing.T) {
	f := newFollower(Config{}, []string{"n1", "n2"})
	on1 := f.set.Add(timelinetest.At(0), timelinetest.Pod(30, nil), true)
	other := timelinetest.Pod(30, nil)
	other.UID, other.Name = "uid-web-2", "web-2"
	on2 := f.set.Add(timelinetest.At(0), other, true)
	f.nodeOf[types.UID(on1.TL.UID)], f.nodeOf[other.UID] = "n1", "n2"

	f.gap(listwatch.Notice{Stream: podStream("n1"), Recv: timelinetest.At(100), Kind: listwatch.KindGapOpen, Reason: "watch connection closed"})
	f.gap(listwatch.Notice{Stream: podStream("n1"), Recv: timelinetest.At(100), Kind: listwatch.KindGapOpen}) // repeated: one gap
	f.gap(listwatch.Notice{Stream: timeline.StreamEvents, Recv: timelinetest.At(150), Kind: listwatch.KindGapOpen})
	f.gap(listwatch.Notice{Stream: podStream("n1"), Recv: timelinetest.At(900), Kind: listwatch.KindGapClose, Relisted: true})
	f.finish()

	if len(f.w.Gaps) != 2 {
		t.Fatalf("gaps %+v, want the Events gap and one gap of n1's pods", f.w.Gaps)
	}
	g := f.w.Gaps[1]
	if g.Stream != timeline.StreamPods || !g.From.Equal(timelinetest.At(100)) || !g.To.Equal(timelinetest.At(900)) || !g.Relisted {
		t.Errorf("n1's gap %+v, want pod from +100 to +900 ms, re-listed", g)
	}
	if n := len(on1.TL.Gaps); n != 2 {
		t.Errorf("the pod on n1 has %d gaps, want its node's and the Events'", n)
	}
	for _, g := range on2.TL.Gaps {
		if g.Stream == timeline.StreamPods {
			t.Errorf("the pod on n2 got n1's gap %+v", g)
		}
	}
}

// Each node's pods are listed by their own watch: one node's List says
// nothing of another node's pods, which stay followed (they were marked
// deleted, "seen by re-list", when the lists of a pool arrived in turn).
func TestNodeListLeavesOtherNodesPods(t *testing.T) {
	f := newFollower(Config{}, []string{"n1", "n2"})
	listOnTwoNodes(f, 10)
	if got := f.remaining(); len(got) != 2 {
		t.Errorf("pods still followed after both nodes' Lists: %v, want both", got)
	}
	for _, rec := range f.set.Recorders() {
		if rec.TL.HasKind(timeline.KindPodGone) {
			t.Errorf("pod %s marked gone by the other node's List", rec.TL.Pod)
		}
	}
}

// finished resumes its scan where it stopped and still answers as a full
// scan would: false while a pod is left, true once every pod is gone or on
// a deleted node, false again for a pod that arrives after that.
func TestFinishedAgreesWithWhatIsLeft(t *testing.T) {
	f := newFollower(Config{}, []string{"n1", "n2"})
	listOnTwoNodes(f, 0)
	check := func(when string) {
		t.Helper()
		if got, want := f.finished(), len(f.remaining()) == 0; got != want {
			t.Errorf("%s: finished %v, but pods left %v", when, got, f.remaining())
		}
	}
	check("both pods on their nodes")
	f.podsListed(context.Background(), "n1", listwatch.Notice{Stream: podStream("n1"), Recv: timelinetest.At(100), Kind: listwatch.KindList})
	check("the pod on n1 gone")
	f.deleted["n2"] = true
	check("n2 deleted")
	if !f.finished() {
		t.Errorf("finished false with nothing left: %v", f.remaining())
	}
	p3 := timelinetest.Pod(30, nil)
	p3.UID, p3.Name, p3.Spec.NodeName = "uid-web-3", "web-3", "n1"
	f.podsListed(context.Background(), "n1", listwatch.Notice{Stream: podStream("n1"), Recv: timelinetest.At(200), List: []runtime.Object{p3}, Kind: listwatch.KindList})
	check("a pod arrived on n1")
	if f.finished() {
		t.Error("finished with a new pod on n1")
	}
}

// listOnTwoNodes gives f the first Lists of nodes n1 and n2, a pod on
// each, n2's after ms milliseconds.
func listOnTwoNodes(f *follower, ms int64) {
	p1 := timelinetest.Pod(30, nil)
	p1.Spec.NodeName = "n1"
	p2 := timelinetest.Pod(30, nil)
	p2.UID, p2.Name, p2.Spec.NodeName = "uid-web-2", "web-2", "n2"
	f.podsListed(context.Background(), "n1", listwatch.Notice{Stream: podStream("n1"), Recv: timelinetest.At(0), List: []runtime.Object{p1}, Kind: listwatch.KindList, Initial: true})
	f.podsListed(context.Background(), "n2", listwatch.Notice{Stream: podStream("n2"), Recv: timelinetest.At(ms), List: []runtime.Object{p2}, Kind: listwatch.KindList, Initial: true})
}

// remaining is the evictable pods still on the nodes that exist.
func (f *follower) remaining() []string {
	out, _ := f.left()
	return out
}

package nodewatch

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

func nodeEventObj(uid, node, reason string, count int32) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{UID: k8stypes.UID("uid-" + uid), Namespace: "default", Name: uid},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node}, Reason: reason, Type: corev1.EventTypeNormal,
		Message: "marked the node as toBeDeleted/unschedulable", Source: corev1.EventSource{Component: "cluster-autoscaler"},
		Count: count, LastTimestamp: metav1.NewTime(time.Unix(1_800_000_000, 0))}
}

// A cluster-autoscaler Event about a followed node is printed as it comes,
// with who emitted it, once per emission (its count); the Events listed at
// start are the past, and another node's Events are not the watch's.
func TestNodeEventsPrintedOncePerEmission(t *testing.T) {
	var got []string
	f := newFollower(Config{Printer: Printer{NodeEvent: func(_ *Watch, e NodeEvent) { got = append(got, e.String()) }}}, []string{"n1", "n2"})
	old := nodeEventObj("old", "n1", "ScaleDown", 1)
	f.listedNotice(context.Background(), listwatch.Notice{Stream: streamNodeEvents, Kind: listwatch.KindList, Initial: true, List: []runtime.Object{old}})
	if len(got) != 0 {
		t.Fatalf("the Events listed at start were printed: %q", got)
	}
	ev := nodeEventObj("sd", "n2", "ScaleDown", 1)
	f.watched(context.Background(), timelinetest.At(10), &watch.Event{Type: watch.Added, Object: ev})
	f.watched(context.Background(), timelinetest.At(20), &watch.Event{Type: watch.Modified, Object: ev}) // same emission
	again := ev.DeepCopy()
	again.Count = 2
	f.watched(context.Background(), timelinetest.At(30), &watch.Event{Type: watch.Modified, Object: again})
	f.watched(context.Background(), timelinetest.At(40), &watch.Event{Type: watch.Added, Object: nodeEventObj("other", "n3", "ScaleDown", 1)})
	want := []string{
		"Normal Event ScaleDown by cluster-autoscaler: marked the node as toBeDeleted/unschedulable",
		"Normal Event ScaleDown by cluster-autoscaler (x2): marked the node as toBeDeleted/unschedulable",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(f.w.NodeEvents) != 2 || f.w.NodeEvents[0].Node != "n2" {
		t.Errorf("recorded %+v, want the two emissions on n2", f.w.NodeEvents)
	}
}

// reportingController names the emitter of a new-style Event (events.k8s.io,
// as Karpenter's recorder writes them) over an empty source.
func TestNodeEventOfReportingController(t *testing.T) {
	ev := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "n1"}, Reason: "DisruptionBlocked", Type: "Normal",
		Message: "Cannot disrupt Node: pdb prevents pod evictions", ReportingController: "karpenter",
		EventTime: metav1.NewMicroTime(time.Unix(1_800_000_000, 0)), Series: &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(time.Unix(1_800_000_060, 0))}}
	e := nodeEventOf(ev)
	if e.By != "karpenter" || e.Count != 3 || !e.Time.Equal(time.Unix(1_800_000_060, 0)) {
		t.Errorf("%+v: want by karpenter, 3 times, last at the series' last", e)
	}
}

// A condition added, changed or removed after the node's first sight is
// printed with the field manager that wrote it; Ready and a message alone
// changing are not.
func TestNodeConditionChanges(t *testing.T) {
	var got []string
	f := newFollower(Config{Printer: Printer{NodeEvent: func(_ *Watch, e NodeEvent) { got = append(got, e.String()) }}}, []string{"n1"})
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "ok"},
	}}}
	f.conditionsSeen(timelinetest.At(0), node)
	n2 := node.DeepCopy()
	n2.Status.Conditions[0].Status = corev1.ConditionFalse
	n2.Status.Conditions[1].Message = "still ok"
	n2.Status.Conditions = append(n2.Status.Conditions, corev1.NodeCondition{Type: "TerminationScheduled", Status: corev1.ConditionTrue,
		Reason: "SpotInterruption", Message: "reclaimed in 2 minutes\x1b[2J"})
	n2.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "kubelet", Time: &metav1.Time{Time: time.Unix(1_800_000_000, 0)}, FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{"k:{\"type\":\"MemoryPressure\"}":{}}}}`)},
		{Manager: "node-problem-detector", Time: &metav1.Time{Time: time.Unix(1_800_000_010, 0)}, FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{"k:{\"type\":\"TerminationScheduled\"}":{".":{}}}}}`)},
	}
	f.conditionsSeen(timelinetest.At(10), n2)
	n3 := n2.DeepCopy()
	n3.Status.Conditions = n3.Status.Conditions[:2]
	f.conditionsSeen(timelinetest.At(20), n3)
	want := []string{
		"condition TerminationScheduled=True (SpotInterruption: reclaimed in 2 minutes\x1b[2J) by node-problem-detector",
		"condition TerminationScheduled removed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%q\nwant:\n%q", got, want)
	}
}

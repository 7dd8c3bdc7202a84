package preflight

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// prioPod is a Ready pod of ReplicaSet rs on node-a with priority prio
// (nil: unset) and Cluster API drain label value drain ("" for none).
func prioPod(name string, prio *int32, drain string) corev1.Pod {
	p := rsPod(name, "rs-"+name, name, "node-a", true)
	p.Spec.Priority = prio
	if drain != "" {
		p.Labels[DrainLabel] = drain
	}
	return p
}

func TestWavesByPriorityLowestFirst(t *testing.T) {
	pods := []corev1.Pod{prioPod("db", ptr.To[int32](1000), ""), prioPod("web", nil, ""),
		prioPod("batch", ptr.To[int32](-10), ""), prioPod("proxy", ptr.To[int32](1000), ""),
		prioPod("keep", ptr.To[int32](5), DrainSkip), prioPod("job", nil, DrainWaitCompleted)}
	r := Check(input(pods, nil, node("node-b", false)))
	if r.Waves != nil || len(r.WaitCompleted) != 0 || r.PodCount() != 6 {
		t.Fatalf("without --order no waves and no label honoured: %+v %v", r.Waves, r.WaitCompleted)
	}
	in := input(pods, nil, node("node-b", false))
	in.Flags.Order = OrderPriority
	r = Check(in)
	want := []Wave{{-10, []string{ns + "/batch"}}, {0, []string{ns + "/web"}}, {1000, []string{ns + "/db", ns + "/proxy"}}}
	if !reflect.DeepEqual(r.Waves, want) {
		t.Fatalf("waves %+v, want %+v", r.Waves, want)
	}
	if !reflect.DeepEqual(r.WaitCompleted, []string{ns + "/job"}) || r.PodCount() != 4 || len(r.Skipped) != 2 {
		t.Fatalf("labelled pods: waitCompleted %v, %d evicted, skipped %+v", r.WaitCompleted, r.PodCount(), r.Skipped)
	}
}

// The end-of-drain read counts a pod still on the node as new only when
// the drain would have evicted it: under --order, Cluster API's drain
// label leaves a pod in place, so it is not new; without --order it is.
func TestEvictsHonoursTheDrainLabelUnderOrder(t *testing.T) {
	for _, v := range []string{DrainSkip, DrainWaitCompleted} {
		p := prioPod("job", nil, v)
		if !Evicts(&p, Flags{}) {
			t.Errorf("%s without --order: the label is not honoured, the pod is evicted", v)
		}
		if Evicts(&p, Flags{Order: OrderPriority}) {
			t.Errorf("%s with --order priority: left in place, not evicted", v)
		}
	}
	p := prioPod("web", nil, "")
	if !Evicts(&p, Flags{Order: OrderPriority}) {
		t.Error("an unlabelled pod is evicted under --order priority")
	}
}

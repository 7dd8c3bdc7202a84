package preflight

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// deleting marks pod deleted at requested with grace seconds and finalizers.
func deleting(pod corev1.Pod, requested time.Time, grace int64, finalizers ...string) corev1.Pod {
	pod.DeletionTimestamp = ptr.To(metav1.NewTime(requested.Add(time.Duration(grace) * time.Second)))
	pod.DeletionGracePeriodSeconds = ptr.To(grace)
	pod.Finalizers = finalizers
	return pod
}

// stopped marks pod's containers stopped: phase Succeeded.
func stopped(pod corev1.Pod) corev1.Pod {
	pod.Status.Phase = corev1.PodSucceeded
	return pod
}

// A pod already terminating is listed, not evicted; past its deadline and
// still there it blocks, saying what it waits on; within its grace period
// it adds the rest of it to the estimate. A finalizer that holds a pod
// past its deadline or after its containers stopped blocks at once (no
// time can be told), and so does a pod past its deadline on a node whose
// kubelet is not Ready; each blocker says whether waiting helps.
func TestPreflightAlreadyTerminatingPods(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	web := rsPod("web-1-a", "web-1", "web", "node-a", true)
	for _, c := range []struct {
		name       string
		pod        corev1.Pod
		nodeReady  bool
		blocker    IssueKind
		waitsOn    string
		estimate   int64
		deletedAgo int64
	}{
		{"held by a finalizer past its deadline", deleting(web, now.Add(-2*time.Minute), 30, "example.com/hold"), true,
			BlockerTerminatingStuck, "finalizer example.com/hold", -1, 120},
		{"within its grace period, with a finalizer", deleting(web, now.Add(-10*time.Second), 40, "example.com/hold"), true,
			"", "its grace period (ends in 30s), then finalizer example.com/hold", 30, 10},
		{"within its grace period", deleting(web, now.Add(-10*time.Second), 40), true, "", "its grace period (ends in 30s)", 30, 10},
		{"past its deadline on a node not Ready", deleting(web, now.Add(-time.Minute), 30), false,
			BlockerTerminatingStuck, "the kubelet of node node-a, which is not Ready", -1, 60},
		{"just past its deadline", deleting(web, now.Add(-32*time.Second), 30), true,
			"", "the kubelet of node node-a to report its containers stopped", 0, 32},
		// The kubelet's final delete (grace 0) moved the deadline to the
		// request time: only the finalizer is left, at once.
		{"stopped, held by a finalizer", stopped(deleting(web, now.Add(-2*time.Second), 0, "example.org/keep")), true,
			BlockerTerminatingStuck, "finalizer example.org/keep", -1, 2},
		{"stopped within its grace period, held by a finalizer", stopped(deleting(web, now.Add(-2*time.Second), 30, "example.org/keep")), true,
			BlockerTerminatingStuck, "finalizer example.org/keep", -1, 2},
		{"just past its deadline, held by a finalizer", deleting(web, now.Add(-31*time.Second), 30, "example.org/keep"), true,
			BlockerTerminatingStuck, "finalizer example.org/keep", -1, 31},
		{"just past its deadline on a node not Ready", deleting(web, now.Add(-31*time.Second), 30), false,
			BlockerTerminatingStuck, "the kubelet of node node-a, which is not Ready", -1, 31},
		{"within its grace period on a node not Ready", deleting(web, now.Add(-10*time.Second), 40), false,
			"", "its grace period (ends in 30s)", 30, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := input([]corev1.Pod{c.pod}, nil)
			in.Nodes[0].Status.Conditions[0].Status = map[bool]corev1.ConditionStatus{true: "True", false: "False"}[c.nodeReady]
			in.Now = now
			r := preflightOf(t, in)
			if r.PodCount() != 0 || len(r.Terminating) != 1 {
				t.Fatalf("evict %d terminating %+v, want the pod listed as terminating only", r.PodCount(), r.Terminating)
			}
			tp := r.Terminating[0]
			if !strings.HasPrefix(tp.WaitsOn, c.waitsOn) || tp.DeletedSecondsAgo != c.deletedAgo ||
				!tp.GraceDeadline.Equal(c.pod.DeletionTimestamp) {
				t.Errorf("terminating = %+v, want waitsOn %q, deleted %d s ago", tp, c.waitsOn, c.deletedAgo)
			}
			if c.blocker == "" {
				if len(r.Blockers) != 0 || r.EstimatedSeconds == nil || *r.EstimatedSeconds != c.estimate ||
					!strings.Contains(r.Verdict, "(and 1 already terminating waited for)") {
					t.Errorf("blockers %v estimate %v verdict %q, want none, %d s and the pod waited for",
						r.Blockers, r.EstimatedSeconds, r.Verdict, c.estimate)
				}
				return
			}
			b := has(r.Blockers, c.blocker)
			if b == nil || !strings.Contains(b.Message, c.waitsOn) || !strings.HasPrefix(r.Verdict, "would block: "+string(c.blocker)) ||
				r.EstimatedSeconds != nil || !strings.Contains(b.Message, "waiting ") {
				t.Errorf("blockers %+v verdict %q, want %s naming %q", r.Blockers, r.Verdict, c.blocker, c.waitsOn)
			}
		})
	}
}

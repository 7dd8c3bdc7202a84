package nodewatch

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	kubectldrain "k8s.io/kubectl/pkg/drain"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// drained is a watch of node n1 on which a naive pod (no preStop) and a
// hardened one (a 6 s preStop) terminated, one workload each.
func drained(t *testing.T) *Watch {
	naive := timelinetest.Terminate(t, timeline.NewRecorder, 30, false, 0, []string{"web"}, 1000, 0, nil).TL
	hardened := timelinetest.Terminate(t, timeline.NewRecorder, 30, true, 6, []string{"api"}, 7000, 0, nil).TL
	return drainedOf(namedPod{"web", naive}, namedPod{"api", hardened})
}

// namedPod is a pod's timeline and the name of its Deployment.
type namedPod struct {
	name string
	tl   *timeline.Timeline
}

// drainedOf is a watch of node n1 on which each pod terminated, one
// Deployment each (behind a Service of its name), in that order.
func drainedOf(pods ...namedPod) *Watch {
	w := &Watch{Nodes: []string{"n1"}, T0: timelinetest.At(0), Start: timelinetest.At(-1000), End: timelinetest.At(8000), Ended: "empty",
		pods: map[*timeline.Timeline]podPlace{}}
	for _, p := range pods {
		name, tl := p.name, p.tl
		r := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Namespace: "shop", Name: name},
			Services: []string{name}, Pods: []*timeline.Timeline{tl}, T0: w.T0, Start: w.Start, End: w.End, Ended: "complete", Complete: true}
		w.Workloads = append(w.Workloads, r)
		w.pods[tl] = podPlace{node: "n1", workload: r}
	}
	return w
}

func TestNodeVerdictNamesTheWorkloadAtRisk(t *testing.T) {
	v := ComputeWith(drained(t), timeline.Options{})
	if !v.Risk || v.Terminated != 2 || v.WindowTooShort != 1 {
		t.Fatalf("risk %v, %d terminated, %d too short: %q", v.Risk, v.Terminated, v.WindowTooShort, v.Findings)
	}
	if got := v.Findings[0]; !strings.Contains(got, "shop/Deployment/web (1 with a window too short") || strings.Contains(got, "api") {
		t.Errorf("first finding %q: want web named at risk, api not", got)
	}
	if v.Workloads[0].Nodes[0] != "n1" || v.Workloads[1].Risk {
		t.Errorf("workloads %+v", v.Workloads)
	}
}

func TestNodeVerdictCannotTellWhatWasStillTerminating(t *testing.T) {
	w := drained(t)
	w.Workloads = w.Workloads[1:]
	w.Ended, w.Remaining, w.Terminating = "interrupted", []string{"shop/api-1", "shop/api-2"}, []string{"shop/api-1"}
	v := ComputeWith(w, timeline.Options{})
	if !v.Risk || !strings.Contains(v.Findings[0], "was interrupted with 2 evictable pod(s) still on the nodes (still terminating: 1 (shop/api-1), not deleted yet: 1 (shop/api-2)): their terminations were not seen to the end, cannot tell") {
		t.Errorf("risk %v, findings %q", v.Risk, v.Findings)
	}
	if strings.Count(v.Findings[0], "shop/api-1") != 1 {
		t.Errorf("finding %q names a pod twice", v.Findings[0])
	}
	// Terminations not seen to the end are no risk seen: the headline is
	// CANNOT TELL, not RISK, while no workload was seen at risk.
	// (render.WriteNodeVerdict: CANNOT TELL when CannotTell and no
	// workload is at risk.)
	if !v.CannotTell {
		t.Errorf("terminations not seen to the end, and cannotTell is false: findings %q", v.Findings)
	}
}

// A watch that reaches --timeout before anyone deleted a pod saw no
// drain: that is no risk, and the pods left are counted, not listed.
func TestNodeVerdictTimeoutWithoutADrain(t *testing.T) {
	w := &Watch{Nodes: []string{"n1"}, Ended: "timeout", Remaining: []string{"shop/web-1", "shop/web-2", "shop/web-3"}}
	v := ComputeWith(w, timeline.Options{})
	got := strings.Join(v.Findings, "\n")
	if v.Risk || v.CannotTell || !strings.Contains(got, "the watch reached --timeout before any pod on the nodes was deleted: no drain seen (3 evictable pod(s) on the nodes)") ||
		strings.Contains(got, "shop/web-1") {
		t.Errorf("risk %v, cannot tell %v, findings %q", v.Risk, v.CannotTell, v.Findings)
	}
}

func TestNodeVerdictNothingOnTheNodes(t *testing.T) {
	v := ComputeWith(&Watch{Nodes: []string{"n1"}, Ended: "empty"}, timeline.Options{})
	if v.Risk || !strings.Contains(strings.Join(v.Findings, "\n"), "no evictable pod was on the nodes: nothing to watch") {
		t.Errorf("risk %v, findings %q", v.Risk, v.Findings)
	}
}

func TestExceptedAsKubectlDrain(t *testing.T) {
	for _, c := range []struct {
		pod  string
		want bool
	}{{"daemonset", true}, {"kruise-daemonset", false}, {"finished-daemonset", false}, {"mirror", true}, {"replicaset", false}, {"bare", false}} {
		if got := excepted(podOwnedBy(c.pod)); got != c.want {
			t.Errorf("%s: excepted %v, want %v", c.pod, got, c.want)
		}
	}
}

// TestExceptedAgreesWithKubectlDrain: the pods the watch does not wait for
// are those kubectl's drain library leaves on the node (--ignore-daemonsets
// --force), asked of k8s.io/kubectl/pkg/drain itself.
func TestExceptedAgreesWithKubectlDrain(t *testing.T) {
	var objs []runtime.Object
	kinds := []string{"daemonset", "kruise-daemonset", "finished-daemonset", "mirror", "replicaset", "bare"}
	for _, o := range kinds {
		p := podOwnedBy(o)
		p.Name, p.Spec.NodeName = o, "n1"
		objs = append(objs, p)
	}
	objs = append(objs, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "shop"}})
	h := &kubectldrain.Helper{Ctx: context.Background(), Client: fake.NewSimpleClientset(objs...), IgnoreAllDaemonSets: true, Force: true,
		Out: io.Discard, ErrOut: io.Discard}
	list, errs := h.GetPodsForDeletion("n1")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	evicted := map[string]bool{}
	for _, p := range list.Pods() {
		evicted[p.Name] = true
	}
	for _, o := range objs[:len(kinds)] {
		p := o.(*corev1.Pod)
		if excepted(p) == evicted[p.Name] {
			t.Errorf("pod %s: excepted %v, kubectl drain evicts it: %v", p.Name, excepted(p), evicted[p.Name])
		}
	}
}

// A node whose kubelet stopped reporting is named in the verdict: still
// silent at the end, a risk that holds its pods; back, a fact saying for
// how long.
func TestNodeVerdictNamesASilentNode(t *testing.T) {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	silent := Silence{Node: "n1", LastHeartbeat: start, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", Seen: start.Add(200 * time.Second)}
	w := &Watch{Nodes: []string{"n1"}, Ended: "interrupted", T0: start, Start: start, End: start.Add(230 * time.Second), Silences: []Silence{silent}}
	v := ComputeWith(w, timeline.Options{})
	if got := strings.Join(v.Findings, "\n"); !v.Risk || !strings.Contains(got, "node n1 stopped reporting (its Ready condition is Unknown (NodeStatusUnknown: Kubelet stopped posting node status.), its kubelet's last heartbeat at 14:00:00Z) and had not reported again when the watch ended, 30s later") {
		t.Errorf("still silent: risk %v, findings %q", v.Risk, v.Findings)
	}
	silent.Back = start.Add(215 * time.Second)
	w = &Watch{Nodes: []string{"n1"}, Ended: "empty", T0: start, Start: start, End: start.Add(230 * time.Second), Silences: []Silence{silent}}
	v = ComputeWith(w, timeline.Options{})
	if got := strings.Join(v.Findings, "\n"); v.Risk || !strings.Contains(got, "node n1 stopped reporting: the node lifecycle controller marked it at 14:03:20.000Z") || !strings.Contains(got, "reported again at 14:03:35.000Z") {
		t.Errorf("back: risk %v, findings %q", v.Risk, v.Findings)
	}
}

// A watch interrupted before a node's pods were listed does not claim the
// node held no evictable pod: it says what it did not see. The node whose
// pods were listed (empty) is not named.
func TestNodeVerdictPodsNeverListed(t *testing.T) {
	f := newFollower(Config{}, []string{"n1", "n2"})
	f.listed[podStream("n2")] = true
	f.w.Ended = timeline.EndedInterrupted
	f.finish()
	got := strings.Join(ComputeWith(f.w, timeline.Options{}).Findings, "\n")
	if !strings.Contains(got, "the watch ended before the pods on n1 were listed: what was on them is not known") ||
		strings.Contains(got, "no evictable pod was on the nodes") || strings.Contains(got, "n2 were listed") {
		t.Errorf("findings %q", got)
	}
}

package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

func TestOutputEscapesClusterText(t *testing.T) {
	evil := "web\x1b[2J\u202e"
	line := progressLine(drain.PodProgress{Namespace: "shop", Name: evil, State: drain.StateBlocked, Cause: "PDB " + evil}, time.Second, 0)
	var b bytes.Buffer
	Summary(&b, &drain.NodeResult{Node: evil, Outcome: drain.OutcomeInterrupted, CordonedByUs: true, EvictionsStarted: true,
		Pods: []drain.PodProgress{{Namespace: "shop", Name: evil, State: drain.StateStopped, Cause: evil}}}, 0)
	Preflight(&b, &preflight.Report{Node: evil, Verdict: evil, Blockers: []preflight.Issue{{Kind: "do-not-disrupt", Message: evil}}}, 0)
	for name, out := range map[string]string{"progress": line, "summary and preflight": b.String()} {
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s output carries raw control characters: %q", name, out)
		}
		if !strings.Contains(out, `web\x1b[2J\u202e`) {
			t.Errorf("%s output lacks the escaped name: %q", name, out)
		}
	}
}

func TestSummaryTellsWhatIsLeftAndTheCordon(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeTimedOut, CordonedByUs: true, EvictionsStarted: true, Pods: []drain.PodProgress{
		{Namespace: "shop", Name: "a", State: drain.StateGone, GoneBy: drain.GoneByEviction, Accepted: true, Attempts: 1},
		{Namespace: "shop", Name: "c", State: drain.StateGone, GoneBy: drain.GoneByOther, Attempts: 2},
		{Namespace: "shop", Name: "b", State: drain.StateStopped, Attempts: 4, Cause: "The disruption budget web needs 2 healthy pods and has 2 currently"},
	}}, 0)
	out := b.String()
	for _, want := range []string{"NOT drained: --timeout reached", "evicted: 1, 1 deleted by another client, still on the node: 1",
		"│ shop/c │ deleted by another client │ 2",
		"The disruption budget web needs 2 healthy pods and has 2 currently", "node n1 stays cordoned; `kubectl graceful uncordon n1`"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// A drain whose pods went but whose node another client uncordoned, with a
// new pod on it, is not "drained".
func TestSummaryOfAnUndoneDrain(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeUndone, CordonedByUs: true, EvictionsStarted: true,
		After: &drain.NodeAfter{Known: true, NewPods: []string{"shop/web-new"}}}, 0)
	out := b.String()
	for _, want := range []string{"node n1 NOT drained: its pods were evicted, but read again at the end it was schedulable: another client uncordoned it during the drain; 1 new pod(s) run on it: shop/web-new",
		"node n1 is schedulable: another client uncordoned it during the drain"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "n1 drained") {
		t.Errorf("an undone drain is called drained:\n%s", out)
	}
}

// A node of a pool deleted while its pods were being evicted is said to be
// gone, never to stay cordoned nor to be uncordoned with kubectl.
func TestSummaryOfANodeDeletedDuringItsDrain(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeNodeGone, CordonedByUs: true, EvictionsStarted: true,
		Error: "the node was deleted during the drain", Pods: []drain.PodProgress{
			{Namespace: "shop", Name: "a", State: drain.StateGone, GoneBy: drain.GoneByEviction, Accepted: true, Attempts: 1}}}, 0)
	out := b.String()
	if !strings.Contains(out, "node n1 is gone: it was deleted during the drain") {
		t.Errorf("summary does not say the node is gone:\n%s", out)
	}
	if strings.Contains(out, "stays cordoned") || strings.Contains(out, "uncordon") {
		t.Errorf("summary tells of the cordon of a deleted node:\n%s", out)
	}
}

// A drain stopped by Ctrl-C or --timeout before it cordoned the node says
// so in one line, and that nothing was changed.
func TestSummaryOfADrainStoppedBeforeTheCordon(t *testing.T) {
	for outcome, want := range map[drain.Outcome]string{
		drain.OutcomeInterrupted: "not draining node n1: interrupted before the cordon; nothing was changed",
		drain.OutcomeTimedOut:    "not draining node n1: --timeout reached before the cordon; nothing was changed",
	} {
		var b bytes.Buffer
		Summary(&b, &drain.NodeResult{Node: "n1", Outcome: outcome}, 0)
		if got := strings.TrimSpace(b.String()); got != want {
			t.Errorf("%s: summary %q, want %q", outcome, got, want)
		}
	}
}

// A drain that stopped while its node's kubelet was silent says so, from
// the read at the end, and names the pods stuck terminating there.
func TestSummaryOfANodeThatStoppedReporting(t *testing.T) {
	var b bytes.Buffer
	hb := metav1.NewTime(time.Date(2026, 12, 2, 14, 1, 2, 0, time.UTC))
	Summary(&b, &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeInterrupted, CordonedByUs: true, EvictionsStarted: true,
		Pods: []drain.PodProgress{{Namespace: "shop", Name: "a", State: drain.StateTerminating, Attempts: 1}},
		After: &drain.NodeAfter{Known: true, Unschedulable: true, NewPods: []string{}, NotReporting: &drain.NodeSilence{
			LastHeartbeat: &hb, Ready: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.",
			LeaseExpired: true, Unreachable: true, Terminating: []string{"shop/a"}}}}, 0)
	out := b.String()
	for _, want := range []string{"evicted: 0, still on the node: 1 (1 terminating",
		"node n1 stopped reporting: its kubelet's last heartbeat was at 14:01:02Z; its Lease expired; its Ready condition is Unknown (NodeStatusUnknown: Kubelet stopped posting node status.); tainted node.kubernetes.io/unreachable",
		"1 pod(s) stuck terminating on it: shop/a;", "waiting will not help until the node reports again"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// A node's line counts an accepted eviction whose pod still terminates as
// evicted, and as still on the node, as the pool summary's EVICTED and
// LEFT do: the two never disagree on the same node.
func TestSummaryCountsAnEvictedPodStillTerminatingAsThePoolDoes(t *testing.T) {
	pods := []drain.PodProgress{
		{Namespace: "shop", Name: "a", State: drain.StateGone, GoneBy: drain.GoneByEviction, Accepted: true},
		{Namespace: "shop", Name: "b", State: drain.StateGone, GoneBy: drain.GoneByEviction, Accepted: true},
		{Namespace: "shop", Name: "c", State: drain.StateTerminating, Accepted: true},
		{Namespace: "shop", Name: "d", State: drain.StateStopped, Cause: "The disruption budget d needs 1 healthy pods and has 1 currently"},
		{Namespace: "shop", Name: "e", State: drain.StateTerminating, WaitsOn: "finalizer example.com/hold"},
	}
	var b bytes.Buffer
	Summary(&b, &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeTimedOut, CordonedByUs: true, EvictionsStarted: true, Pods: pods}, 0)
	want := "evicted: 3 (1 still terminating), still on the node: 3 (2 terminating, 1 not evicted, 0 failed)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

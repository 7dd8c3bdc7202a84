package preflight

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const ns = "shop"

func node(name string, unschedulable bool) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.NodeSpec{Unschedulable: unschedulable},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// rsPod is a Running pod of ReplicaSet rs on nodeName with labels app=app.
func rsPod(name, rs, app, nodeName string, ready bool) corev1.Pod {
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: nodeName, TerminationGracePeriodSeconds: ptr.To[int64](30)},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: status}}},
	}
}

func pdb(name, app string, allowed, current, desired, expected int32) policyv1.PodDisruptionBudget {
	return policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(desired)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, CurrentHealthy: current,
			DesiredHealthy: desired, ExpectedPods: expected},
	}
}

// input builds an Input draining node-a with node-b as the other node.
func input(pods []corev1.Pod, pdbs []policyv1.PodDisruptionBudget, others ...corev1.Node) Input {
	a := node("node-a", false)
	nodes := append([]corev1.Node{a}, others...)
	var onA []corev1.Pod
	for _, p := range pods {
		if p.Spec.NodeName == "node-a" {
			onA = append(onA, p)
		}
	}
	return Input{Node: &a, Nodes: nodes, Pods: onA, NamespacePods: pods, PDBs: pdbs,
		RSOwners: map[string]OwnerRef{ns + "/web-1": {Kind: "Deployment", Name: "web"}},
		Flags:    Flags{GracePeriodSeconds: -1}, RetryDelay: time.Second}
}

func kinds(issues []Issue) []IssueKind {
	var out []IssueKind
	for _, i := range issues {
		out = append(out, i.Kind)
	}
	return out
}

func has(issues []Issue, kind IssueKind) *Issue {
	for i := range issues {
		if issues[i].Kind == kind {
			return &issues[i]
		}
	}
	return nil
}

func threeWebPods(ready bool) []corev1.Pod {
	return []corev1.Pod{
		rsPod("web-1-a", "web-1", "web", "node-a", ready),
		rsPod("web-1-b", "web-1", "web", "node-a", ready),
		rsPod("web-1-c", "web-1", "web", "node-a", ready),
	}
}

func TestPreflightPDBRoomElsewhereGoesOneAfterAnother(t *testing.T) {
	in := input(threeWebPods(true), []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 3, 2, 3)}, node("node-b", false))
	r := preflightOf(t, in)
	if len(r.Blockers) != 0 {
		t.Fatalf("blockers = %v, want none", r.Blockers)
	}
	if len(r.Budgets) != 1 || r.Budgets[0].Plan != "one after another" || r.Budgets[0].Waves != 3 {
		t.Fatalf("budgets = %+v, want one PDB going one after another in 3 waves", r.Budgets)
	}
	if b := r.Budgets[0]; b.HealthyOnNode != 3 || b.DisruptionsAllowed != 1 || b.UnhealthyPodEvictionPolicy != "IfHealthyBudget" {
		t.Errorf("budget = %+v", b)
	}
	if has(r.Warnings, WarningPDBSequential) == nil || has(r.Warnings, WarningAllReplicas) != nil {
		t.Errorf("warnings = %v, want pdb-sequential and no all-replicas-on-node (the PDB paces them)", kinds(r.Warnings))
	}
	if len(r.Evict) != 1 || r.Evict[0].Owner.String() != "Deployment/web" || len(r.Evict[0].Pods) != 3 || r.Evict[0].Replicas != 3 {
		t.Errorf("evict groups = %+v, want Deployment/web with 3 pods", r.Evict)
	}
	// 30 s grace + 2 waits of (1 s retry + 2 s ready).
	if r.EstimatedSeconds == nil || *r.EstimatedSeconds != 36 {
		t.Errorf("estimate = %v s, want 36", r.EstimatedSeconds)
	}
	if !strings.HasPrefix(r.Verdict, "would succeed: 3 pod(s)") {
		t.Errorf("verdict = %q", r.Verdict)
	}
}

func TestPreflightPDBNoRoomElsewhereBlocks(t *testing.T) {
	for name, others := range map[string][]corev1.Node{
		"no other node":     nil,
		"other cordoned":    {node("node-b", true)},
		"other tainted":     {taint(node("node-b", false))},
		"selector mismatch": {node("node-b", false)},
	} {
		t.Run(name, func(t *testing.T) {
			pods := threeWebPods(true)
			if name == "selector mismatch" {
				for i := range pods {
					pods[i].Spec.NodeSelector = map[string]string{"pool": "a"}
				}
			}
			r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 3, 2, 3)}, others...))
			b := has(r.Blockers, BlockerPDBNoRoom)
			if b == nil || b.PDB != ns+"/web" || b.Refuses {
				t.Fatalf("blockers = %+v, want a non-refusing pdb-no-room-elsewhere on shop/web", r.Blockers)
			}
			if !strings.Contains(r.Verdict, "would block: pdb-no-room-elsewhere (PDB shop/web)") {
				t.Errorf("verdict = %q", r.Verdict)
			}
		})
	}
}

func taint(n corev1.Node) corev1.Node {
	n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	return n
}

func TestPreflightPDBWithinBudgetGoesAtOnce(t *testing.T) {
	pods := threeWebPods(true)
	pods[2].Spec.NodeName = "node-b"
	r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 2, 3, 1, 3)}))
	if len(r.Blockers) != 0 || r.Budgets[0].Plan != "all at once" || has(r.Warnings, WarningAllReplicas) != nil {
		t.Fatalf("blockers %v budgets %+v warnings %v", r.Blockers, r.Budgets, kinds(r.Warnings))
	}
}

func TestPreflightPDBAllowingNothingBySpec(t *testing.T) {
	p := pdb("web", "web", 0, 3, 3, 3)
	p.Spec.MinAvailable = nil
	p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(0))
	r := preflightOf(t, input(threeWebPods(true), []policyv1.PodDisruptionBudget{p}, node("node-b", false)))
	b := has(r.Blockers, BlockerPDBAllowsNone)
	if b == nil || !strings.Contains(b.Message, "maxUnavailable: 0") || b.PDB != "shop/web" {
		t.Fatalf("blockers = %+v, want pdb-allows-none naming maxUnavailable: 0", r.Blockers)
	}
	if r.Budgets[0].Plan != "blocked" {
		t.Errorf("plan = %q", r.Budgets[0].Plan)
	}

	minAll := pdb("web", "web", 0, 3, 3, 3) // minAvailable 3 of 3
	r = preflightOf(t, input(threeWebPods(true), []policyv1.PodDisruptionBudget{minAll}, node("node-b", false)))
	if has(r.Blockers, BlockerPDBAllowsNone) == nil {
		t.Errorf("minAvailable == expectedPods: blockers = %v, want pdb-allows-none", kinds(r.Blockers))
	}
}

// minAvailable 3 over a Deployment of 3 while one pod terminates: the
// disruption controller counts the terminating pod and its replacement in
// expectedPods (4), but at most 3 pods can ever be healthy, so the budget
// allows none by its spec; no node elsewhere would change that.
func TestPreflightPDBAllowingNothingWhileAPodTerminates(t *testing.T) {
	pods := threeWebPods(true)
	gone := rsPod("web-1-d", "web-1", "web", "node-b", false)
	gone.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	pods = append(pods, gone)
	pods[2].Spec.NodeName = "node-b" // the replacement, Ready
	minAll := pdb("web", "web", 0, 3, 3, 4)
	r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{minAll}))
	b := has(r.Blockers, BlockerPDBAllowsNone)
	if b == nil || has(r.Blockers, BlockerPDBNoRoom) != nil || !strings.Contains(b.Message, "minAvailable: 3 with 3 pod(s) selected that are not terminating") {
		t.Fatalf("blockers = %+v, want pdb-allows-none from minAvailable 3 and the 3 pods that can be healthy", r.Blockers)
	}
}

func TestPreflightPodUnderTwoPDBs(t *testing.T) {
	other := pdb("web-too", "web", 1, 3, 2, 3)
	r := preflightOf(t, input(threeWebPods(true), []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 3, 2, 3), other}, node("node-b", false)))
	b := has(r.Blockers, BlockerMultiplePDBs)
	if b == nil || !strings.Contains(b.Message, "500") {
		t.Fatalf("blockers = %+v, want multiple-pdbs mentioning the 500", r.Blockers)
	}
}

func TestPreflightUnreadyPod(t *testing.T) {
	pods := []corev1.Pod{
		rsPod("web-1-a", "web-1", "web", "node-a", false),
		rsPod("web-1-b", "web-1", "web", "node-b", true),
		rsPod("web-1-c", "web-1", "web", "node-b", true),
	}
	budget := pdb("web", "web", 0, 2, 3, 3)
	budget.Spec.MinAvailable = ptr.To(intstr.FromString("90%"))
	r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{budget}, node("node-b", false)))
	b := has(r.Blockers, BlockerUnreadyPod)
	if b == nil || b.Pod != "shop/web-1-a" {
		t.Fatalf("IfHealthyBudget: blockers = %+v, want unready-pod-if-healthy-budget for shop/web-1-a", r.Blockers)
	}

	budget.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
	r = preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{budget}, node("node-b", false)))
	if len(r.Blockers) != 0 {
		t.Errorf("AlwaysAllow: blockers = %+v, want none", r.Blockers)
	}

	// IfHealthyBudget with the budget met: the unready pod may go.
	met := pdb("web", "web", 0, 2, 2, 3)
	r = preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{met}, node("node-b", false)))
	if has(r.Blockers, BlockerUnreadyPod) != nil {
		t.Errorf("budget met: blockers = %+v, want none", r.Blockers)
	}
}

func TestPreflightPendingPodIgnoresBudget(t *testing.T) {
	pods := threeWebPods(true)
	for i := range pods {
		pods[i].Status.Phase = corev1.PodPending
	}
	p := pdb("web", "web", 0, 0, 3, 3)
	r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{p}))
	if len(r.Blockers) != 0 || len(r.Budgets) != 0 {
		t.Fatalf("Pending pods are deleted without a PDB check: blockers %v budgets %+v", r.Blockers, r.Budgets)
	}
}

func special() []corev1.Pod {
	bare := rsPod("bare", "", "bare", "node-a", true)
	bare.OwnerReferences = nil
	scratch := rsPod("scratch", "cache", "cache", "node-a", true)
	scratch.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	ds := rsPod("agent", "", "agent", "node-a", true)
	ds.OwnerReferences = []metav1.OwnerReference{{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "DaemonSet", Name: "agent", Controller: ptr.To(true)}}
	return []corev1.Pod{bare, scratch, ds}
}

func TestPreflightPodsNeedingFlags(t *testing.T) {
	r := preflightOf(t, input(special(), nil))
	want := map[IssueKind]string{BlockerNeedsForce: "shop/bare", BlockerNeedsDeleteEmptyDirData: "shop/scratch", BlockerNeedsIgnoreDaemonSets: "shop/agent"}
	for kind, pod := range want {
		b := has(r.Blockers, kind)
		if b == nil || b.Pod != pod || !b.Refuses {
			t.Errorf("blocker %s = %+v, want refusing blocker on %s", kind, b, pod)
		}
	}
	if !r.Refused() || !strings.HasPrefix(r.Verdict, "would not start:") || r.PodCount() != 0 {
		t.Errorf("refused %v verdict %q pods %d", r.Refused(), r.Verdict, r.PodCount())
	}

	in := input(special(), nil)
	in.Flags = Flags{Force: true, DeleteEmptyDirData: true, IgnoreDaemonSets: true, GracePeriodSeconds: -1}
	r = preflightOf(t, in)
	if len(r.Blockers) != 0 || r.PodCount() != 2 || len(r.Skipped) != 1 || r.Skipped[0].Name != "agent" {
		t.Errorf("with flags: blockers %v, evict %d, skipped %+v; want bare+scratch evicted, agent skipped",
			r.Blockers, r.PodCount(), r.Skipped)
	}
}

func TestPreflightDoNotDisruptAnnotations(t *testing.T) {
	pods := threeWebPods(true)
	pods[0].Annotations = map[string]string{safeToEvictAnnotation: "false"}
	pods[1].Annotations = map[string]string{doNotDisruptAnnotation: "true"}
	pods[2].Annotations = map[string]string{safeToEvictAnnotation: "true"}
	r := preflightOf(t, input(pods, nil, node("node-b", false)))
	var got []string
	for _, b := range r.Blockers {
		if b.Kind == BlockerDoNotDisrupt {
			got = append(got, b.Pod)
		}
	}
	if strings.Join(got, ",") != "shop/web-1-a,shop/web-1-b" || !r.Refused() {
		t.Fatalf("do-not-disrupt blockers on %v, want web-1-a and web-1-b", got)
	}
	in := input(pods, nil, node("node-b", false))
	in.Flags.EvictDoNotDisrupt = true
	if r := preflightOf(t, in); len(r.Blockers) != 0 {
		t.Errorf("--evict-do-not-disrupt: blockers %v", r.Blockers)
	}
}

func TestPreflightSingleReplicaAndCordoned(t *testing.T) {
	pods := []corev1.Pod{rsPod("web-1-a", "web-1", "web", "node-a", true)}
	in := input(pods, nil, node("node-b", false))
	in.Node.Spec.Unschedulable = true
	in.Flags.GracePeriodSeconds = 5
	r := preflightOf(t, in)
	if w := has(r.Warnings, WarningSingleReplica); w == nil || !strings.Contains(w.Message, "shop/Deployment/web") {
		t.Errorf("warnings = %+v, want single-replica for Deployment/web", r.Warnings)
	}
	if !r.AlreadyCordoned || r.EstimatedSeconds == nil || *r.EstimatedSeconds != 5 {
		t.Errorf("alreadyCordoned %v estimate %v, want true and 5 (--grace-period)", r.AlreadyCordoned, r.EstimatedSeconds)
	}
}

func TestPreflightDisableEvictionBypassesBudgets(t *testing.T) {
	p := pdb("web", "web", 0, 3, 3, 3)
	in := input(threeWebPods(true), []policyv1.PodDisruptionBudget{p})
	in.Flags.DisableEviction = true
	r := preflightOf(t, in)
	if len(r.Blockers) != 0 || has(r.Warnings, WarningDisableEviction) == nil {
		t.Errorf("blockers %v warnings %v", r.Blockers, kinds(r.Warnings))
	}
}

func TestPreflightAuditWarnings(t *testing.T) {
	in := input(threeWebPods(true), nil, node("node-b", false))
	in.PodWarnings = func(p *corev1.Pod) []string {
		if p.Name == "web-1-b" {
			return []string{"no preStop hook"}
		}
		return nil
	}
	r := preflightOf(t, in)
	w := has(r.Warnings, WarningTerminationAudit)
	if w == nil || w.Pod != "shop/web-1-b" || !strings.Contains(w.Message, "no preStop hook") {
		t.Errorf("warnings = %+v", r.Warnings)
	}
}

func TestPreflightAllReplicasOnNodeWithoutPDB(t *testing.T) {
	r := preflightOf(t, input(threeWebPods(true), nil, node("node-b", false)))
	w := has(r.Warnings, WarningAllReplicas)
	if w == nil || !strings.Contains(w.Message, "all 3 replicas of shop/Deployment/web") {
		t.Errorf("warnings = %+v, want all-replicas-on-node", r.Warnings)
	}
}

func TestPreflightWarnsOfPodsTheAuditRatesError(t *testing.T) {
	pods := threeWebPods(true)
	pods[1].Spec.TerminationGracePeriodSeconds = ptr.To[int64](10)
	pods[1].Spec.Containers = []corev1.Container{{Name: "app", Lifecycle: &corev1.Lifecycle{
		PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 30}}}}}
	in := input(pods, nil, node("node-b", false))
	in.PodWarnings = AuditWarnings
	r := preflightOf(t, in)
	var got []string
	for _, w := range r.Warnings {
		if w.Kind == WarningTerminationAudit {
			got = append(got, w.Pod)
		}
	}
	if len(got) != 1 || got[0] != "shop/web-1-b" {
		t.Errorf("termination-audit warnings on %v, want only shop/web-1-b (preStop 30 s > grace 10 s): %+v", got, r.Warnings)
	}
}

// An app waiting 15 s in its preStop beside an istio-proxy without one: the
// proxy stops first, a termination warning; as a native sidecar it is not.
func TestPreflightWarnsOfSidecarStoppingFirst(t *testing.T) {
	pods := threeWebPods(true)
	app := corev1.Container{Name: "app", Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
		Exec: &corev1.ExecAction{Command: []string{"sleep", "15"}}}}}
	proxy := corev1.Container{Name: "istio-proxy"}
	pods[0].Spec.TerminationGracePeriodSeconds = ptr.To[int64](40)
	pods[0].Spec.Containers = []corev1.Container{app, proxy}
	pods[1].Spec.TerminationGracePeriodSeconds = ptr.To[int64](40)
	pods[1].Spec.Containers = []corev1.Container{app}
	pods[1].Spec.InitContainers = []corev1.Container{{Name: "istio-proxy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
	in := input(pods, nil, node("node-b", false))
	in.PodWarnings = AuditWarnings
	r := preflightOf(t, in)
	var got []Issue
	for _, w := range r.Warnings {
		if w.Kind == WarningTerminationAudit {
			got = append(got, w)
		}
	}
	if len(got) != 1 || got[0].Pod != "shop/web-1-a" || !strings.Contains(got[0].Message, "sidecar-stops-first") ||
		!strings.Contains(got[0].Message, "istio-proxy") {
		t.Errorf("termination warnings %+v, want sidecar-stops-first on shop/web-1-a only", got)
	}
}

// A blocked verdict says the drain still cordons and how long it retries:
// until --timeout, or until Ctrl-C when none is set (kubectl drain's
// default too).
func TestBlockedVerdictSaysHowLongTheDrainWaits(t *testing.T) {
	for timeout, want := range map[time.Duration]string{
		0:                "a drain cordons the node and retries until Ctrl-C (no --timeout)",
		30 * time.Second: "a drain cordons the node and retries for --timeout 30s",
	} {
		if got := blockedWait("the node", "", timeout); got != want {
			t.Errorf("timeout %v: %q, want %q", timeout, got, want)
		}
	}
}

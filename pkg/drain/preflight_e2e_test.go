package drain_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

// A budget held by an unready pod on another node: maxUnavailable 1 over
// app=web, two Ready pods of web on the drained node, one pod of another
// Deployment labelled app=web elsewhere that never turns Ready. The
// disruption controller computes disruptionsAllowed 0, and nothing the
// drain does frees one: the preflight blocks naming the unready pod and its
// node, the plan is blocked, no estimate is printed and --dry-run exits 2.
func TestDrainPreflightBudgetHeldByUnreadyPodElsewhere(t *testing.T) {
	t.Parallel()
	for _, policy := range []policyv1.UnhealthyPodEvictionPolicyType{policyv1.IfHealthyBudget, policyv1.AlwaysAllow} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			// Room elsewhere for web's replacements: only the budget blocks.
			a, _ := f.onOneOfTwo("web", "web", 2)
			b := f.env.Node(t)
			f.deploy("sick", "web", 1, map[string]string{hostLabel: b}, map[string]string{sim.Ready: "false"})
			f.pdb("web", "web", nil, intOrStr(1), ptr.To(policy), 3)
			sick := f.pods("role=sick", onNode(b))
			if len(sick) != 1 {
				t.Fatalf("%d sick pods on %s, want 1", len(sick), b)
			}

			dry := f.drain(a, "--dry-run")
			expect(t, dry, 2, "[pdb-held-by-unready-pods] PDB "+f.ns+"/web allows no disruption",
				f.ns+"/"+sick[0].Name+" on node "+b+" (Running, not Ready", string(policy),
				"Verdict: would block: pdb-held-by-unready-pods (PDB "+f.ns+"/web)")
			if strings.Contains(dry.Stdout, "all at once") || strings.Contains(dry.Stdout, "Estimated time") {
				t.Errorf("a blocked preflight says \"all at once\" or prints an estimate")
			}
			if f.unschedulable(a) {
				t.Errorf("--dry-run cordoned %s", a)
			}
		})
	}
}

// A pod held by a finalizer after its deletion: the preflight lists it as
// already terminating (not evicted again) with its age, grace deadline and
// finalizers, and once it is past its deadline it blocks, saying it waits
// on the finalizer, in text and in -o json.
func TestDrainPreflightPodHeldByFinalizer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	held := f.pods("app=web", onNode(a))[0].Name
	pods := f.env.Client.CoreV1().Pods(f.ns)
	f.deleteHeld(held, "example.com/hold", 1)
	p, err := pods.Get(f.ctx, held, metav1.GetOptions{})
	if err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("pod %s after delete: %v", held, err)
	}
	// Past the deadline by more than the few seconds a kubelet may take.
	time.Sleep(time.Until(p.DeletionTimestamp.Add(7 * time.Second)))
	// The kubelet's (here kwok's) final delete, with grace 0, moves the
	// deletionTimestamp: read it again.
	if p, err = pods.Get(f.ctx, held, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}

	dry := f.drain(a, "--dry-run")
	expect(t, dry, 2, "Already terminating (not evicted again, waited for): 1", f.ns+"/"+held, "example.com/hold",
		"[terminating-pod-stuck] pod "+f.ns+"/"+held, "it waits on finalizer example.com/hold",
		"Verdict: would block: terminating-pod-stuck")

	res := f.drain(a, "--dry-run", "-o", "json")
	var doc struct {
		Nodes []struct {
			Preflight struct {
				Terminating []struct {
					Name                string
					Finalizers          []string
					WaitsOn             string
					GraceDeadline       time.Time
					SecondsPastDeadline int64
					DeletedSecondsAgo   int64
				}
				Evict []struct{ Pods []struct{ Name string } }
			}
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.ExitCode != 2 || len(doc.Nodes) != 1 {
		t.Fatalf("-o json: exit %d, %v", res.ExitCode, err)
	}
	pf := doc.Nodes[0].Preflight
	if len(pf.Terminating) != 1 {
		t.Fatalf("terminating = %+v, want the held pod", pf.Terminating)
	}
	tp := pf.Terminating[0]
	if tp.Name != held || len(tp.Finalizers) != 1 || tp.Finalizers[0] != "example.com/hold" ||
		tp.WaitsOn != "finalizer example.com/hold" || tp.SecondsPastDeadline < 5 || tp.DeletedSecondsAgo < 5 ||
		!tp.GraceDeadline.Equal(p.DeletionTimestamp.Time) {
		t.Errorf("terminating = %+v, want %s held by example.com/hold past its deadline %s", tp, held, p.DeletionTimestamp)
	}
	for _, g := range pf.Evict {
		for _, e := range g.Pods {
			if e.Name == held {
				t.Errorf("the terminating pod %s is listed to be evicted again", held)
			}
		}
	}
}

// An app waiting 15 s in its preStop (grace 40 s) beside an istio-proxy
// container without one: the drain's preflight warns that the proxy stops
// first (the audit's sidecar-stops-first), and the drain is not blocked.
func TestDrainPreflightWarnsOfSidecarStoppingFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	labels := map[string]string{"app": "mesh"}
	tpl := podTemplate(labels, map[string]string{hostLabel: a}, nil)
	tpl.Spec.TerminationGracePeriodSeconds = ptr.To[int64](40)
	tpl.Spec.Containers = []corev1.Container{
		{Name: "app", Image: "example.com/app:1", Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
			Exec: &corev1.ExecAction{Command: []string{"sleep", "15"}}}}},
		{Name: "istio-proxy", Image: "example.com/proxy:1"},
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "mesh"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tpl}}
	f.create(d, func() error {
		_, err := f.env.Client.AppsV1().Deployments(f.ns).Create(f.ctx, d, metav1.CreateOptions{})
		return err
	})
	f.waitPods("app=mesh", 1, isReady)

	expect(t, f.drain(a, "--dry-run"), 0, "[termination-audit]", "loses requests when evicted: sidecar-stops-first",
		"istio-proxy", "Verdict: would succeed")
}

// lbGate is the readiness gate the AWS Load Balancer Controller injects.
const lbGate = "target-health.elbv2.k8s.aws/k8s-shop-web-0123456789"

// Pods of app=web declare the load balancer's target-health readiness
// gate, two on node a and one on node b, under maxUnavailable 1
// (IfHealthyBudget). The test then plays the load balancer controller for
// one pod on each node, setting the gate's condition False
// (Elb.RegistrationInProgress), and the kubelet, which then reports Ready
// False (ReadinessGatesNotReady) with its containers Ready. The preflight
// blocks (exit 2) naming the gate, its status and reason for both pods:
// the one on a refused under IfHealthyBudget, the one on b holding the
// budget; nothing is called crash-looping, and each says whether waiting
// helps.
func TestDrainPreflightNamesReadinessGate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	f.gatedDeploy("web-a", a, 2)
	f.gatedDeploy("web-b", b, 1)
	f.pdb("web", "web", nil, intOrStr(1), ptr.To(policyv1.IfHealthyBudget), 3)
	here, there := f.pods("role=web-a", onNode(a))[0].Name, f.pods("role=web-b", onNode(b))[0].Name
	for _, pod := range []string{here, there} {
		f.closeGate(pod)
	}
	// The disruption controller counts the two unready pods out before
	// the preflight reads the budget (as the API server's eviction would).
	f.pdbStatus("web", func(p *policyv1.PodDisruptionBudget) bool { return p.Status.CurrentHealthy == 1 })

	dry := f.drain(a, "--dry-run")
	want := "held unready by readiness gate " + lbGate + " (condition False, reason Elb.RegistrationInProgress: Target registration is in progress)"
	expect(t, dry, 2, "[unready-pod-if-healthy-budget] pod "+f.ns+"/"+here+" is not Ready ("+want,
		"[pdb-held-by-unready-pods] PDB "+f.ns+"/web", f.ns+"/"+there+" on node "+b, want,
		"waiting helps only if whoever owns the gate (not the kubelet) sets it True",
		"Verdict: would block: ")
	if strings.Contains(dry.Stdout, "crash") {
		t.Errorf("a pod held by a readiness gate is described as crash-looping")
	}
}

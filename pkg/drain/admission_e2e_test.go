package drain_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// An eviction refused by a ValidatingAdmissionPolicy (422, reason Invalid)
// is a refusal by admission, not the cluster failing the drain: the pod is
// retried with back-off until --timeout, and the summary names it with the
// policy's message (`refused by admission: MESSAGE`), exit 2, the headline
// once; the pod is still there.
func TestDrainRefusedByAdmissionPolicy(t *testing.T) {
	t.Parallel()
	refusedByPolicy(t, metav1.StatusReasonInvalid)
}

// The same with the policy's validation naming reason Forbidden: a 403,
// RBAC's code, which used to end the drain as an API failure (exit 1).
func TestDrainRefusedByAdmissionPolicyWithRBACsCode(t *testing.T) {
	t.Parallel()
	refusedByPolicy(t, metav1.StatusReasonForbidden)
}

// refusedByPolicy drains a node whose one pod a policy refuses to evict
// with reason, and checks what the user sees.
func refusedByPolicy(t *testing.T, reason metav1.StatusReason) {
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 1)
	pod := f.pods("app=web", onNode(a))[0]
	f.denyEvictions(pod.Name, reason, "evictions are frozen for the change window")

	start := time.Now()
	res := f.drain(a, "--timeout", "8s", "-v", "6")
	want := "refused by admission: pods \"" + pod.Name + "\" is forbidden: ValidatingAdmissionPolicy 'deny-evictions-" + f.ns +
		"' with binding 'deny-evictions-" + f.ns + "' denied request: evictions are frozen for the change window"
	expect(t, res, 2, want, "NOT drained: --timeout reached")
	if took := time.Since(start); took < 8*time.Second {
		t.Errorf("the drain ended after %s, before its 8s --timeout: the refused pod was not retried", took.Round(time.Millisecond))
	}
	if n := strings.Count(res.Stdout, "NOT drained"); n != 1 {
		t.Errorf("the headline printed %d times, want once", n)
	}
	if n := evictionsOf(res.Stderr, pod.Name); n < 2 {
		t.Errorf("%d evictions of %s sent, want it retried until --timeout", n, pod.Name)
	}
	if len(f.pods("app=web", onNode(a))) != 1 {
		t.Errorf("pod %s is gone, though admission refused its eviction", pod.Name)
	}
}

// An operator that moves a pod itself (as Strimzi's drain cleaner does)
// has a policy refuse its eviction and deletes it on its own: the drain
// goes on with the node's other pods, retries the refused one, counts it
// gone once its operator deleted it (its replacement, elsewhere, is never
// evicted) and ends drained.
// make test-faults runs it five times in a row.
func TestDrainRefusedByAdmissionUntilItsOperatorMovesIt(t *testing.T) {
	t.Parallel()
	e2e.RepeatRealFault(t, operatorMovesRefusedPod)
}

// operatorMovesRefusedPod is one run of
// TestDrainRefusedByAdmissionUntilItsOperatorMovesIt.
func operatorMovesRefusedPod(t *testing.T) string {
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b)
	f.cordon(b, true)
	f.deploy("web", "web", 1, sel, nil)
	f.deploy("api", "api", 2, sel, nil)
	f.cordon(b, false)
	pod := f.pods("app=web", onNode(a))[0]
	f.denyEvictions(pod.Name, metav1.StatusReasonInvalid, "the operator moves this pod itself")

	done := make(chan e2e.Result, 1)
	start := time.Now()
	go func() { done <- f.drain(a, "--timeout", "90s", "-o", "json") }()
	// The operator's move: it deletes the pod a few seconds in, once the
	// policy refused at least one eviction.
	time.Sleep(4 * time.Second)
	if err := f.env.Client.CoreV1().Pods(f.ns).Delete(f.ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.ExitCode != 0 {
		t.Fatalf("exit status %d, want 0 (drained)", res.ExitCode)
	}
	var report struct {
		Nodes []struct {
			Outcome string `json:"outcome"`
			Pods    []struct {
				Name   string `json:"name"`
				State  string `json:"state"`
				GoneBy string `json:"goneBy"`
			} `json:"pods"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil || len(report.Nodes) != 1 {
		t.Fatalf("report: %v\n%s", err, res.Stdout)
	}
	n := report.Nodes[0]
	if n.Outcome != "drained" {
		t.Errorf("outcome %s, want drained", n.Outcome)
	}
	seen := false
	for _, p := range n.Pods {
		if p.Name == pod.Name {
			seen = true
			if p.State != "gone" || p.GoneBy == "evicted" {
				t.Errorf("the refused pod: state %s, gone by %q; want gone, not by our eviction", p.State, p.GoneBy)
			}
		} else if p.State != "gone" || p.GoneBy != "evicted" {
			t.Errorf("pod %s: state %s, gone by %q; want evicted", p.Name, p.State, p.GoneBy)
		}
	}
	if !seen || len(n.Pods) != 3 {
		t.Errorf("%d pods in the report (the refused one among them: %v), want 3", len(n.Pods), seen)
	}
	if left := f.pods("app=web", onNode(a)); len(left) != 0 {
		t.Errorf("%d web pods still on the drained node", len(left))
	}
	if len(f.pods("app=web", func(*corev1.Pod) bool { return true })) != 1 {
		t.Errorf("the web Deployment's replacement was evicted or never came")
	}
	return fmt.Sprintf("drained in %s, the refused pod gone by its operator's delete", time.Since(start).Round(time.Millisecond))
}

// evictionsOf counts the evictions of pod in a -v 6 log (each response
// logged twice).
func evictionsOf(log, pod string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `verb="POST"`) && strings.Contains(line, "/pods/"+pod+"/eviction") && strings.Contains(line, "status=") {
			n++
		}
	}
	return (n + 1) / 2
}

// denyEvictions makes a ValidatingAdmissionPolicy, bound to the fixture's
// namespace only, that refuses every eviction of pod with message and reason,
// and waits until the API server applies it (a server-side dry-run
// eviction of pod refused).
func (f *fixture) denyEvictions(pod string, reason metav1.StatusReason, message string) {
	f.t.Helper()
	name := "deny-evictions-" + f.ns
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
							Resources: []string{"pods/eviction"}},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.metadata.name != '" + pod + "'", Message: message, Reason: &reason}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": f.ns}},
			},
		},
	}
	vap := f.env.Client.AdmissionregistrationV1()
	if _, err := vap.ValidatingAdmissionPolicies().Create(f.ctx, policy, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = vap.ValidatingAdmissionPolicies().Delete(f.ctx, name, metav1.DeleteOptions{}) })
	if _, err := vap.ValidatingAdmissionPolicyBindings().Create(f.ctx, binding, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = vap.ValidatingAdmissionPolicyBindings().Delete(f.ctx, name, metav1.DeleteOptions{}) })
	e2e.WaitFor(f.t, 30*time.Second, "the policy applied", func() bool {
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: f.ns},
			DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
		err := f.env.Client.PolicyV1().Evictions(f.ns).Evict(f.ctx, ev)
		return err != nil && strings.Contains(err.Error(), message)
	})
}

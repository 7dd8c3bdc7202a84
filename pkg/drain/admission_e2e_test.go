package drain_test

import (
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// An eviction refused by a ValidatingAdmissionPolicy (422, reason Invalid)
// is a refusal by admission, not the cluster failing the drain:
// `refused by admission: MESSAGE`, exit 2, the headline once.
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

	res := f.drain(a, "--timeout", "60s")
	want := "refused by admission: pods \"" + pod.Name + "\" is forbidden: ValidatingAdmissionPolicy 'deny-evictions-" + f.ns +
		"' with binding 'deny-evictions-" + f.ns + "' denied request: evictions are frozen for the change window"
	expect(t, res, 2, want, "NOT drained: evictions were refused")
	if n := strings.Count(res.Stdout+res.Stderr, "NOT drained"); n != 1 {
		t.Errorf("the headline printed %d times, want once", n)
	}
	if res.Stderr != "" {
		t.Errorf("an admission refusal reported on stderr, as an API failure is:\n%s", res.Stderr)
	}
	if len(f.pods("app=web", onNode(a))) != 1 {
		t.Errorf("pod %s is gone, though admission refused its eviction", pod.Name)
	}
}

// denyEvictions makes a ValidatingAdmissionPolicy, bound to the fixture's
// namespace only, that refuses every eviction with message and reason,
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
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: message, Reason: &reason}},
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

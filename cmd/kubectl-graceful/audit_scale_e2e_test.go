package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// scaleCRDs are two custom resources, Flock without a scale subresource
// and Herd with one, in an API group of the test's own (%[1]s).
const scaleCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: flocks.%[1]s}
spec:
  group: %[1]s
  names: {kind: Flock, plural: flocks}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: herds.%[1]s}
spec:
  group: %[1]s
  names: {kind: Herd, plural: herds}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
`

// TestAuditPDBOverCustomResourceWithoutScale: kubevirt/kubevirt#18063.
// Pods controlled by a custom resource without /scale, under a budget
// with maxUnavailable: the disruption controller cannot count them
// (SyncFailed) and an eviction is refused; the live audit says so from
// API discovery, only for that kind, and its fix (an integer
// minAvailable) lets the eviction through. From files, --fix writes the
// same budget, which the API server takes.
func TestAuditPDBOverCustomResourceWithoutScale(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	node := env.Node(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	group := ns + ".graceful.test"
	crds := writeManifest(t, fmt.Sprintf(scaleCRDs, group))
	if res := kubectl("apply", "-f", crds); res.ExitCode != 0 {
		t.Fatalf("apply CRDs: %s", res.Stderr)
	}
	t.Cleanup(func() { kubectl("delete", "-f", crds, "--wait=false") })
	if res := kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/flocks."+group, "crd/herds."+group); res.ExitCode != 0 {
		t.Fatalf("CRDs not established: %s", res.Stderr)
	}
	for _, kind := range []string{"Flock", "Herd"} {
		owner := strings.ToLower(kind)
		objs := writeManifest(t, fmt.Sprintf(`apiVersion: %[1]s/v1
kind: %[2]s
metadata: {name: %[3]s}
spec: {replicas: 2}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: %[3]s}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: %[3]s}}
`, group, kind, owner))
		e2e.WaitFor(t, time.Minute, "the "+kind+" kind to be served", func() bool {
			return kubectl("apply", "-n", ns, "-f", objs).ExitCode == 0
		})
		uid := kubectl("get", owner+"."+group, owner, "-n", ns, "-o", "jsonpath={.metadata.uid}").Stdout
		for i := range 2 {
			createOwnedPod(t, env, ns, node, fmt.Sprintf("%s-%d", owner, i), metav1.OwnerReference{
				APIVersion: group + "/v1", Kind: kind, Name: owner, UID: types.UID(uid), Controller: ptr.To(true)})
		}
	}
	env.WaitReadyPods(t, ns, 4, e2e.SetupWait)

	// The cluster: the Flock budget cannot be computed and refuses an
	// eviction; the Herd budget, read through /scale, allows one.
	waitBudget(t, env, ns, "flock", func(c *metav1.Condition, _ *policyv1.PodDisruptionBudget) bool {
		return c.Status == metav1.ConditionFalse && c.Reason == policyv1.SyncFailedReason && strings.Contains(c.Message, "does not implement the scale subresource")
	})
	waitBudget(t, env, ns, "herd", func(c *metav1.Condition, p *policyv1.PodDisruptionBudget) bool {
		return c.Status == metav1.ConditionTrue && p.Status.DisruptionsAllowed == 1
	})
	if err := evict(env, ns, "flock-0"); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("eviction of flock-0: %v, want 429 (the budget refuses it)", err)
	}

	// The live audit: an error for the Flock budget only, with the count.
	r := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none")
	got := scaleFindings(r)
	if len(got) != 1 || got[0].Object.Name != "flock" || got[0].Severity != inspect.SeverityError ||
		!strings.Contains(got[0].Message, "pods of Flock/flock ("+group+"/v1), whose API serves no /scale subresource") {
		t.Fatalf("findings %+v, want one error for the flock budget", got)
	}
	// The fix is the budget's one combined patch (-o json): applied as
	// printed, the budget is computed and the eviction goes.
	prefix := "kubectl patch pdb flock -n " + ns + " --type=merge -p '"
	patch, ok := strings.CutPrefix(got[0].Fix, prefix)
	patch = strings.TrimSuffix(patch, "'")
	if !ok || !strings.Contains(patch, `"maxUnavailable":null,"minAvailable":1`) {
		t.Fatalf("fix %q, want a patch to minAvailable 1 (2 pods, 1 unavailable)", got[0].Fix)
	}
	if res := kubectl("patch", "pdb", "flock", "-n", ns, "--type=merge", "-p", patch); res.ExitCode != 0 {
		t.Fatalf("patch: %s", res.Stderr)
	}
	waitBudget(t, env, ns, "flock", func(c *metav1.Condition, p *policyv1.PodDisruptionBudget) bool {
		return c.Status == metav1.ConditionTrue && p.Status.DisruptionsAllowed == 1
	})
	if err := evict(env, ns, "flock-0"); err != nil {
		t.Errorf("eviction after the fix: %v", err)
	}
	if got := scaleFindings(auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none")); len(got) != 0 {
		t.Errorf("after the fix: findings %+v", got)
	}

	// From files, --fix writes the integer minAvailable; the API server
	// takes the fixed budget.
	f := writeManifest(t, fmt.Sprintf(scaleCRDs, group)+fmt.Sprintf(`---
apiVersion: %s/v1
kind: Flock
metadata: {name: flock2}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: flock2}}
    spec: {containers: [{name: app, image: example.com/app:1}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: flock2}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: flock2}}
`, group))
	res := kubectl("graceful", "audit", "-n", ns, "-f", f, "--fix", "--fix-only", "pdb-custom-resource-without-scale")
	fixed, _ := os.ReadFile(f)
	if res.ExitCode != 0 || !strings.Contains(string(fixed), "spec:\n  selector: {matchLabels: {app: flock2}}\n  minAvailable: 2\n") {
		t.Fatalf("--fix: exit %d\n%s%s\nfile:\n%s", res.ExitCode, res.Stdout, res.Stderr, fixed)
	}
	if !strings.Contains(res.Stdout, "maxUnavailable 1 -> minAvailable: 2") {
		t.Errorf("--fix output does not say the change:\n%s", res.Stdout)
	}
	if res := kubectl("apply", "--validate=strict", "--dry-run=server", "-n", ns, "-f", f); res.ExitCode != 0 {
		t.Errorf("the fixed file does not apply: %s", res.Stderr)
	}
}

func scaleFindings(r *inspect.Report) []inspect.Finding {
	var out []inspect.Finding
	for _, f := range r.Findings {
		if f.Check == "pdb-custom-resource-without-scale" {
			out = append(out, f)
		}
	}
	return out
}

// createOwnedPod creates a pod on node whose controller is owner.
func createOwnedPod(t *testing.T, env *e2e.Env, ns, node, name string, owner metav1.OwnerReference) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": owner.Name}, OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: corev1.PodSpec{NodeName: node, Tolerations: []corev1.Toleration{e2e.NodeToleration},
			Containers: []corev1.Container{{Name: "app", Image: "example.com/app:1"}}},
	}
	if _, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
}

// waitBudget waits until budget name's DisruptionAllowed condition
// satisfies ok, and fails with the last condition seen. (A failed sync
// leaves status.observedGeneration behind: the controller's failSafe sets
// only the condition and disruptionsAllowed.) Until
// kube-controller-manager's REST mapper knows a new kind (it is reset
// every 30 s) the sync fails with "no matches for kind", and the
// controller's retries back off past the wait: an annotation on the
// budget every 5 s queues it again at once.
func waitBudget(t *testing.T, env *e2e.Env, ns, name string, ok func(*metav1.Condition, *policyv1.PodDisruptionBudget) bool) {
	t.Helper()
	pdbs := env.Client.PolicyV1().PodDisruptionBudgets(ns)
	last, nudged := "none", time.Now()
	for deadline := time.Now().Add(e2e.SetupWait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p, err := pdbs.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			continue
		}
		for i, c := range p.Status.Conditions {
			if c.Type != policyv1.DisruptionAllowedCondition {
				continue
			}
			last = fmt.Sprintf("%s %s %q, disruptionsAllowed %d", c.Status, c.Reason, c.Message, p.Status.DisruptionsAllowed)
			if ok(&p.Status.Conditions[i], p) {
				return
			}
			if strings.Contains(c.Message, "no matches for kind") && time.Since(nudged) > 5*time.Second {
				nudged = time.Now()
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.graceful.test/nudge":%q}}}`, nudged.Format(time.RFC3339Nano))
				_, _ = pdbs.Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			}
		}
	}
	t.Fatalf("timed out after %s waiting for the disruption controller's status of budget %s; last: %s", e2e.SetupWait, name, last)
}

func evict(env *e2e.Env, ns, pod string) error {
	return env.Client.PolicyV1().Evictions(ns).Evict(context.Background(), &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: ns}})
}

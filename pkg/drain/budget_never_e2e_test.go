package drain_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// Budgets that can never allow a disruption, with the status the real
// disruption controller writes for them: the dry run blocks naming why
// (exit 2), never "would succeed", and its PLAN is blocked, not waves.
func TestDrainPreflightBudgetThatNeverAllows(t *testing.T) {
	t.Parallel()
	t.Run("neither minAvailable nor maxUnavailable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		a, _ := f.onOneOfTwo("web", "web", 2)
		f.rawPDB(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
		st := f.pdbStatus("web", func(p *policyv1.PodDisruptionBudget) bool { return p.Status.ObservedGeneration == p.Generation })
		if st.ExpectedPods != 0 || st.DesiredHealthy != 0 || st.DisruptionsAllowed != 0 {
			t.Fatalf("the disruption controller wrote %+v, not the case under test", st)
		}
		dry := f.drain(a, "--dry-run")
		expect(t, dry, 2, "[pdb-never-allows] PDB "+f.ns+"/web allows no disruption and cannot by itself",
			"expectedPods 0, desiredHealthy 0, disruptionsAllowed 0, condition DisruptionAllowed=False (InsufficientPods)",
			"sets neither minAvailable nor maxUnavailable", "waiting does not help", "Verdict: would block")
		noFalsePromise(t, dry)
	})
	t.Run("maxUnavailable over part of a StatefulSet", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		a, b := f.env.Node(t), f.env.Node(t)
		sel := f.pool(a, b)
		f.statefulSet("db", 3, sel)
		db0 := f.pods("app=db,statefulset.kubernetes.io/pod-name=db-0", isReady)
		if len(db0) != 1 {
			t.Fatalf("db-0 not Ready")
		}
		one := intOrStr(1)
		f.rawPDB(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "db-0"}, Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"statefulset.kubernetes.io/pod-name": "db-0"}}}})
		st := f.pdbStatus("db-0", func(p *policyv1.PodDisruptionBudget) bool {
			return p.Status.ObservedGeneration == p.Generation && p.Status.ExpectedPods == 3
		})
		t.Logf("status: %+v", st)
		dry := f.drain(db0[0].Spec.NodeName, "--dry-run")
		expect(t, dry, 2, "[pdb-never-allows] PDB "+f.ns+"/db-0", "expectedPods 3", "desiredHealthy 2", "selects 1 pod(s) and at most 0 more can come")
		noFalsePromise(t, dry)
	})
	t.Run("status the controller cannot compute (SyncFailed)", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		node := f.env.Node(t)
		uid := f.widget()
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "w-0", Labels: map[string]string{"app": "w"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.org/v1", Kind: f.widgetKind(), Name: "w1", UID: uid, Controller: new(true)}}},
			Spec: podTemplate(nil, map[string]string{hostLabel: node}, nil).Spec}
		f.create(pod, func() error {
			_, err := f.env.Client.CoreV1().Pods(f.ns).Create(f.ctx, pod, metav1.CreateOptions{})
			return err
		})
		f.waitPods("app=w", 1, isReady)
		f.rawPDB(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: intOrStr(1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "w"}}}})
		f.pdbStatus("w", func(p *policyv1.PodDisruptionBudget) bool { return len(p.Status.Conditions) > 0 })
		dry := f.drain(node, "--dry-run")
		// The controller's message depends on whether its REST mapper has
		// seen the new kind yet ("no matches for kind") or has
		// ("does not implement the scale subresource"): SyncFailed either way.
		expect(t, dry, 2, "[pdb-never-allows] PDB "+f.ns+"/w", "reason SyncFailed: ", "waiting does not help")
		if strings.Contains(dry.Stdout, "pdb-not-observed") {
			t.Errorf("a budget whose sync failed is reported as not observed yet")
		}
		noFalsePromise(t, dry)
	})
}

// noFalsePromise checks a blocked dry run promises nothing.
func noFalsePromise(t *testing.T, res e2e.Result) {
	t.Helper()
	for _, bad := range []string{"would succeed", "one after another", "Estimated time"} {
		if strings.Contains(res.Stdout, bad) {
			t.Errorf("the dry run of a budget that cannot move says %q", bad)
		}
	}
}

func (f *fixture) rawPDB(p *policyv1.PodDisruptionBudget) {
	f.t.Helper()
	f.create(p, func() error {
		_, err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Create(f.ctx, p, metav1.CreateOptions{})
		return err
	})
}

// pdbStatus waits until PDB name satisfies done and returns its status.
func (f *fixture) pdbStatus(name string, done func(*policyv1.PodDisruptionBudget) bool) policyv1.PodDisruptionBudgetStatus {
	f.t.Helper()
	var got *policyv1.PodDisruptionBudget
	e2e.WaitFor(f.t, e2e.SetupWait, "PDB "+name+" processed", func() bool {
		p, err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Get(f.ctx, name, metav1.GetOptions{})
		got = p
		return err == nil && done(p)
	})
	return got.Status
}

// statefulSet creates StatefulSet name (app=name) of replicas pods on the
// nodes of nodeSelector and waits until they are Ready.
func (f *fixture) statefulSet(name string, replicas int32, nodeSelector map[string]string) {
	f.t.Helper()
	labels := map[string]string{"app": name}
	s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.StatefulSetSpec{Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: podTemplate(labels, nodeSelector, nil),
		PodManagementPolicy: appsv1.ParallelPodManagement}}
	f.create(s, func() error {
		_, err := f.env.Client.AppsV1().StatefulSets(f.ns).Create(f.ctx, s, metav1.CreateOptions{})
		return err
	})
	f.waitPods("app="+name, int(replicas), isReady)
}

// widget creates a CustomResourceDefinition of the test's own, without a
// scale subresource, and one object of it, w1; it returns w1's UID.
func (f *fixture) widget() types.UID {
	f.t.Helper()
	kind, plural := f.widgetKind(), strings.ToLower(f.widgetKind())+"s"
	crd := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]s.example.org}
spec:
  group: example.org
  names: {kind: %[2]s, plural: %[1]s, singular: %[3]s}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`, plural, kind, strings.ToLower(kind))
	file := filepath.Join(f.t.TempDir(), "crd.yaml")
	if err := os.WriteFile(file, []byte(crd), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if res := f.env.Kubectl(f.t, "apply", "-f", file); res.ExitCode != 0 {
		f.t.Fatalf("CRD: %s", res.Stderr)
	}
	f.t.Cleanup(func() { f.env.Kubectl(f.t, "delete", "crd", plural+".example.org", "--wait=false") })
	obj := filepath.Join(f.t.TempDir(), "w1.yaml")
	_ = os.WriteFile(obj, []byte("apiVersion: example.org/v1\nkind: "+kind+"\nmetadata: {name: w1}\n"), 0o644)
	e2e.WaitFor(f.t, e2e.SetupWait, "the CRD served", func() bool {
		return f.env.Kubectl(f.t, "apply", "-n", f.ns, "-f", obj).ExitCode == 0
	})
	res := f.env.Kubectl(f.t, "get", plural+".example.org", "w1", "-n", f.ns, "-o", "jsonpath={.metadata.uid}")
	if res.ExitCode != 0 || res.Stdout == "" {
		f.t.Fatalf("w1's uid: %s", res.Stderr)
	}
	return types.UID(res.Stdout)
}

// widgetKind is the test namespace's own Kind (CRDs are cluster-wide).
func (f *fixture) widgetKind() string {
	return "Widget" + strings.ReplaceAll(strings.TrimPrefix(f.ns, "e2e-"), "-", "")
}

package drain_test

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// The test deletes a pod itself while a PDB refusal keeps the drain waiting
// on it: the summary says it was deleted by another client, and counts only
// the other pod as evicted.
func TestDrainPodDeletedByAnotherClient(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := frozenNode(t, f)
	pods := f.pods("app=web", onNode(a))
	wait := drainAsync(f, a, "--timeout", "90s")
	waitCordoned(t, f, a)
	if err := f.env.Client.CoreV1().Pods(f.ns).Delete(f.ctx, pods[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, time.Minute, "pod "+pods[0].Name+" gone", func() bool {
		_, err := f.env.Client.CoreV1().Pods(f.ns).Get(f.ctx, pods[0].Name, metav1.GetOptions{})
		return err != nil
	})
	time.Sleep(6 * time.Second) // the drain's next retry finds it gone
	if err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Delete(f.ctx, "frozen", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	res := wait()
	expect(t, res, 0, f.ns+"/"+pods[0].Name+" │ deleted by another client",
		f.ns+"/"+pods[1].Name+" │ evicted", "drained: 1 pod(s) evicted, 1 deleted by another client")
}

// A pod already terminating, held by a finalizer, is not evicted again:
// progress, the summary and -o json say it waits on the finalizer.
func TestDrainPodHeldByFinalizer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	f.deploy("web", "web", 1, f.pool(a), nil)
	pod := f.pods("app=web", onNode(a))[0]
	hold := func(finalizers string) {
		patch := `{"metadata":{"finalizers":` + finalizers + `}}`
		if _, err := f.env.Client.CoreV1().Pods(f.ns).Patch(f.ctx, pod.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	hold(`["example.com/hold"]`)
	t.Cleanup(func() { hold(`null`) })
	if err := f.env.Client.CoreV1().Pods(f.ns).Delete(f.ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.cordon(a, true) // no replacement here
	f.cordon(a, false)

	text := f.drain(a, "--timeout", "6s")
	expect(t, text, 2, "already terminating, not evicted again; waits on finalizer example.com/hold")
	f.cordon(a, false)
	res := f.drain(a, "--timeout", "6s", "-o", "json")
	var r struct {
		Nodes []struct {
			Pods []struct {
				Name     string `json:"name"`
				State    string `json:"state"`
				Attempts int    `json:"attempts"`
				WaitsOn  string `json:"waitsOn"`
			} `json:"pods"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil || len(r.Nodes) != 1 {
		t.Fatalf("-o json unreadable (%v): %s", err, res.Stdout)
	}
	found := false
	for _, p := range r.Nodes[0].Pods {
		if p.Name == pod.Name {
			found = true
			if p.WaitsOn != "finalizer example.com/hold" || p.Attempts != 0 || p.State != "terminating" {
				t.Errorf("-o json pod %+v, want terminating, 0 evictions, waits on finalizer example.com/hold", p)
			}
		}
	}
	if !found {
		t.Errorf("-o json lacks the terminating pod %s", pod.Name)
	}
}

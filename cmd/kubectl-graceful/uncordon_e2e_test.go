package main

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestUncordonTakesBackOnlyOurLBLabelE2E: a node drained with
// --exclude-from-lb is uncordoned and its load balancer label removed;
// a node cordoned and labelled by someone else is uncordoned and keeps
// the label, said so; --dry-run=client changes nothing. Checked on the
// nodes as the API server stores them.
func TestUncordonTakesBackOnlyOurLBLabelE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ours, theirs := env.Node(t), env.Node(t)
	ctx := context.Background()
	lb := corev1.LabelNodeExcludeBalancers

	d := env.Kubectl(t, "graceful", "drain", "node", ours, "--ignore-daemonsets", "--exclude-from-lb")
	if d.ExitCode != 0 {
		t.Fatalf("drain --exclude-from-lb: exit %d\n%s\n%s", d.ExitCode, d.Stdout, d.Stderr)
	}
	if want := "node " + ours + " stays cordoned and out of the load balancers; `kubectl graceful uncordon " + ours + "` undoes both"; !strings.Contains(d.Stdout, want) {
		t.Errorf("the drain's summary does not point to the uncordon that removes its label (%q):\n%s", want, d.Stdout)
	}
	patch := `{"metadata":{"labels":{"` + lb + `":"true"}},"spec":{"unschedulable":true}}`
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, theirs, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	dry := env.Kubectl(t, "graceful", "uncordon", ours, theirs, "--dry-run=client")
	if dry.ExitCode != 0 || !strings.Contains(dry.Stdout, "node/"+ours+" uncordoned (dry run)") {
		t.Errorf("dry run: exit %d\n%s\n%s", dry.ExitCode, dry.Stdout, dry.Stderr)
	}
	for _, name := range []string{ours, theirs} {
		if n := node(t, env, name); !n.Spec.Unschedulable || n.Labels[lb] == "" {
			t.Errorf("node %s changed by a dry run: unschedulable %v, labels %v", name, n.Spec.Unschedulable, n.Labels)
		}
	}

	res := env.Kubectl(t, "graceful", "uncordon", ours, theirs)
	t.Logf("uncordon:\n%s%s", res.Stdout, res.Stderr)
	want := []string{
		"node/" + ours + " uncordoned",
		"node/" + ours + ": label " + lb + " removed, set by drain node --exclude-from-lb",
		"node/" + theirs + " uncordoned",
		"node/" + theirs + ": label " + lb + " kept: not set by a drain of kubectl graceful",
	}
	for _, w := range want {
		if !strings.Contains(res.Stdout, w) {
			t.Errorf("uncordon's output lacks %q", w)
		}
	}
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Errorf("uncordon: exit %d, stderr %q; want 0 and nothing", res.ExitCode, res.Stderr)
	}
	n := node(t, env, ours)
	if _, ok := n.Labels[lb]; ok || n.Spec.Unschedulable || n.Annotations["kubectl-graceful.dev/excluded-from-lb"] != "" {
		t.Errorf("node %s (drained by us): unschedulable %v, labels %v, annotations %v; want schedulable, neither label nor record",
			ours, n.Spec.Unschedulable, n.Labels, n.Annotations)
	}
	if n := node(t, env, theirs); n.Spec.Unschedulable || n.Labels[lb] != "true" {
		t.Errorf("node %s (someone else's label): unschedulable %v, labels %v; want schedulable, label kept", theirs, n.Spec.Unschedulable, n.Labels)
	}
	again := env.Kubectl(t, "graceful", "uncordon", ours)
	if again.ExitCode != 0 || strings.TrimSpace(again.Stdout) != "node/"+ours+" already uncordoned" {
		t.Errorf("uncordon again: exit %d, stdout %q", again.ExitCode, again.Stdout)
	}
}

// node reads a node as the API server stores it.
func node(t *testing.T, env *e2e.Env, name string) *corev1.Node {
	t.Helper()
	n, err := env.Client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

package drain_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// --delete-after deletes only the pod its budget still refuses, naming it
// and its budget on stderr before and in the summary after, and exits 3;
// the pod whose budget allows is evicted as usual.
func TestDrainDeleteAfterE2E(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b)
	f.placeOn([]string{b}, func() {
		f.deploy("stuck", "stuck", 1, sel, nil)
		f.deploy("web", "web", 1, sel, nil)
	})
	one := intstr.FromInt32(1)
	f.pdb("stuck", "stuck", &one, nil, nil, 1)
	f.pdb("web", "web", nil, &one, nil, 1)
	stuck := f.pods("app=stuck", onNode(a))
	web := f.pods("app=web", onNode(a))
	if len(stuck) != 1 || len(web) != 1 {
		t.Fatalf("pods on %s: stuck %d, web %d, want 1 each", a, len(stuck), len(web))
	}

	res := f.drain(a, "--delete-after", "5s", "--eviction-retry-max", "1s")
	stuckPod := f.ns + "/" + stuck[0].Name
	expect(t, res, 3, "BUDGET OVERRIDDEN: pod "+stuckPod+" deleted past PodDisruptionBudget "+f.ns+"/stuck (--delete-after)",
		"node "+a+" drained: 1 pod(s) evicted, 1 deleted past its budget",
		// The preflight says what the flag will do, before it happens.
		"--delete-after 5s: pod(s) "+stuckPod+" will be deleted past PodDisruptionBudget "+f.ns+"/stuck 5s after the node's evictions start",
		"Verdict: would succeed: 2 pod(s) evicted from node "+a+", 1 of them deleted past their budget if it still refuses them (--delete-after)")
	if strings.Contains(res.Stdout, "Verdict: would block") {
		t.Errorf("the preflight says the drain would block, which --delete-after overrides")
	}
	warn := "deleting pod " + stuckPod + " on node " + a + ", which PodDisruptionBudget " + f.ns + "/stuck still refuses"
	if !strings.Contains(res.Stderr, warn) {
		t.Errorf("stderr does not name the pod and its budget before the delete: want %q", warn)
	}
	if strings.Contains(res.Stderr, web[0].Name) || strings.Contains(res.Stdout, "PodDisruptionBudget "+f.ns+"/web (--delete-after)") {
		t.Errorf("the pod whose budget allows its eviction is named as deleted past it")
	}
	for _, p := range stuck {
		if _, err := f.env.Client.CoreV1().Pods(f.ns).Get(f.ctx, p.Name, metav1.GetOptions{}); err == nil {
			t.Errorf("pod %s is still there after the drain said it was deleted", p.Name)
		}
	}
}

// --delete-after with a dry run is bad input: one line on stderr, exit 1,
// nothing done.
func TestDrainDeleteAfterDryRunE2E(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	node := f.env.Node(t)
	res := f.drain(node, "--delete-after", "5s", "--dry-run=client")
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	if res.ExitCode != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: --delete-after") || res.Stdout != "" {
		t.Errorf("--delete-after with --dry-run: exit %d, stdout %q, stderr %q; want exit 1, one error line, no preflight",
			res.ExitCode, res.Stdout, res.Stderr)
	}
	if f.unschedulable(node) {
		t.Errorf("node %s was cordoned by a refused command", node)
	}
}

// In a pool (drain node -l), --delete-after deletes, on each node, only
// the pod its budget still refuses past DURATION, naming each with its
// budget on stderr before and in the summary after, and exits 3; the pod
// whose budget allows is evicted as usual.
func TestDrainPoolDeleteAfterE2E(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b, spare := f.env.Node(t), f.env.Node(t), f.env.Node(t)
	home := f.pool(a, b, spare)
	old := "d-" + f.ns
	f.label(oldPoolLabel, old, a, b)
	f.placeOn([]string{b, spare}, func() {
		f.deploy("stuck-a", "stuck", 1, home, nil)
		f.deploy("web", "web", 1, home, nil)
	})
	f.placeOn([]string{a, spare}, func() { f.deploy("stuck-b", "stuck", 1, home, nil) })
	two, one := intstr.FromInt32(2), intstr.FromInt32(1)
	f.pdb("stuck", "stuck", &two, nil, nil, 2)
	f.pdb("web", "web", nil, &one, nil, 1)
	stuck := map[string][]corev1.Pod{a: f.pods("app=stuck", onNode(a)), b: f.pods("app=stuck", onNode(b))}
	web := f.pods("app=web", onNode(a))
	if len(stuck[a]) != 1 || len(stuck[b]) != 1 || len(web) != 1 {
		t.Fatalf("stuck pods on %s %d, on %s %d; web on %s %d: want 1 each", a, len(stuck[a]), b, len(stuck[b]), a, len(web))
	}

	res := f.drain("-l", oldPoolLabel+"="+old, "--delete-after", "5s", "--eviction-retry-max", "1s", "--timeout", "120s")
	var want []string
	for _, node := range []string{a, b} {
		pod := f.ns + "/" + stuck[node][0].Name
		want = append(want, "BUDGET OVERRIDDEN: pod "+pod+" deleted past PodDisruptionBudget "+f.ns+"/stuck (--delete-after)")
		warn := "deleting pod " + pod + " on node " + node + ", which PodDisruptionBudget " + f.ns + "/stuck still refuses"
		if !strings.Contains(res.Stderr, warn) {
			t.Errorf("stderr does not name the pod and its budget before the delete: want %q", warn)
		}
		if _, err := f.env.Client.CoreV1().Pods(f.ns).Get(f.ctx, stuck[node][0].Name, metav1.GetOptions{}); err == nil {
			t.Errorf("pod %s is still there after the drain said it was deleted", pod)
		}
	}
	// The summary counts the deleted pods apart: they were not evicted.
	want = append(want, "evictions per pod: 0.33 (1 evictions accepted, 2 pod(s) deleted past their budget (--delete-after), 3 pod(s) to evict at the start)")
	expect(t, res, 3, append(want, "node "+a+" drained: 1 pod(s) evicted, 1 deleted past its budget", "Pool verdict: would succeed: 3 pod(s) evicted from 2 node(s), 2 of them deleted past their budget if it still refuses them (--delete-after)")...)
	if strings.Contains(res.Stderr, web[0].Name) || strings.Contains(res.Stdout, "PodDisruptionBudget "+f.ns+"/web (--delete-after)") {
		t.Errorf("the pod whose budget allows its eviction is named as deleted past it")
	}
}

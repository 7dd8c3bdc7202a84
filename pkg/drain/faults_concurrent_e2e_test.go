package drain_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// twoNodesOneBudget makes nodes a and b holding two pods of web each (two
// Deployments), a PDB with minAvailable 3 over the four, and room on a
// third node c.
func twoNodesOneBudget(t *testing.T, f *fixture) (a, b, c string) {
	a, b, c = f.env.Node(t), f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b, c)
	f.cordon(b, true)
	f.cordon(c, true)
	f.deploy("wa", "web", 2, sel, nil)
	f.cordon(a, true)
	f.cordon(b, false)
	f.deploy("wb", "web", 2, sel, nil)
	f.cordon(a, false)
	f.cordon(c, false)
	f.pdb("web", "web", intOrStr(3), nil, nil, 4)
	return a, b, c
}

// Two drains at once, as two processes: one of node a, one of nodes a
// and b, under one budget (minAvailable 3 of 4). Both end drained, the
// budget holds (Ready pods watched), the nodes are empty and cordoned
// when read afterwards, and no pod is claimed evicted by both.
func TestDrainConcurrentOverlappingDrains(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		f := faultFixture(t, fe)
		a, b, _ := twoNodesOneBudget(t, f)
		onA := map[string]bool{}
		for _, p := range f.pods("app=web", onNode(a)) {
			onA[p.Name] = true
		}
		ready := countReady(t, f, "app=web")
		first := drainAsync(f, a, "--timeout", "150s", "-o", "json")
		second := drainAsync(f, a, b, "--timeout", "150s", "-o", "json")
		results := []e2e.Result{first(), second()}
		claims := map[string]int{}
		var outcomes []string
		for i, res := range results {
			var r cordonReport
			if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
				t.Fatalf("drain %d: -o json unreadable (%v): %s", i+1, err, res.Stdout)
			}
			if res.ExitCode != 0 {
				t.Errorf("drain %d: exit %d, want 0", i+1, res.ExitCode)
			}
			var nodes []string
			for _, n := range r.Nodes {
				nodes = append(nodes, n.Node+" "+n.Outcome)
				if n.Outcome != "drained" || n.After == nil || !n.After.Known || !n.After.Unschedulable || len(n.After.NewPods) > 0 {
					t.Errorf("drain %d: node %s %s, after %+v", i+1, n.Node, n.Outcome, n.After)
				}
				for _, p := range n.Pods {
					if n.Node == a && p.GoneBy == "evicted" {
						claims[p.Name]++
					}
				}
			}
			outcomes = append(outcomes, fmt.Sprintf("drain %d exit %d (%s)", i+1, res.ExitCode, strings.Join(nodes, ", ")))
		}
		for pod, n := range claims {
			if n > 1 || !onA[pod] {
				t.Errorf("pod %s claimed evicted by %d drains (on node %s at the start: %v)", pod, n, a, onA[pod])
			}
		}
		for _, n := range []string{a, b} {
			if left := len(f.pods("app=web", onNode(n))); left != 0 || !f.unschedulable(n) {
				t.Errorf("after both drains: %d pod(s) on %s, cordoned %v", left, n, f.unschedulable(n))
			}
		}
		if low := ready.Lowest(); low < 3 {
			t.Errorf("Ready pods dropped to %d, the PDB says at least 3", low)
		}
		return fmt.Sprintf("%s; evictions of a's pods claimed %v; lowest Ready %d", strings.Join(outcomes, "; "), claims, ready.Lowest())
	})
}

// Another client uncordons the node mid-drain: the pods still go once the
// budget allows, but the drain reads the node again at the end, says it was
// uncordoned and exits 2 instead of claiming "drained".
func TestDrainNodeUncordonedMidDrain(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		f := faultFixture(t, fe)
		a := frozenNode(t, f)
		wait := drainAsync(f, a, "--timeout", "90s")
		waitCordoned(t, f, a)
		if r := f.env.Kubectl(t, "uncordon", a); r.ExitCode != 0 {
			t.Fatalf("kubectl uncordon: %s", r.Stderr)
		}
		if err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Delete(f.ctx, "frozen", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		res := wait()
		expect(t, res, 2, "NOT drained: its pods were evicted, but read again at the end it was schedulable: another client uncordoned it during the drain")
		if strings.Contains(res.Stdout, "node "+a+" drained:") {
			t.Errorf("the drain claims the node drained")
		}
		if f.unschedulable(a) {
			t.Errorf("node %s is cordoned: the uncordon did not happen", a)
		}
		// The summary's new pods are what a fresh read finds on the node
		// (more may come after it: the node is schedulable).
		fresh := len(f.pods("app=web", func(p *corev1.Pod) bool { return p.Spec.NodeName == a }))
		said := 0
		if m := regexp.MustCompile(`(\d+) new pod\(s\) run on it`).FindStringSubmatch(res.Stdout); m != nil {
			said, _ = strconv.Atoi(m[1])
		}
		if said > fresh {
			t.Errorf("the summary names %d new pod(s) on %s, a fresh read finds %d", said, a, fresh)
		}
		return fmt.Sprintf("exit %d, %q; %d web pod(s) on the node afterwards", res.ExitCode, summaryLine(res.Stdout, a), fresh)
	})
}

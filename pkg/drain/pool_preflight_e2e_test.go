package drain_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// oldPoolLabel marks the nodes of a pool to drain, apart from poolLabel,
// which marks every node the test's pods may run on.
const oldPoolLabel = "drain.graceful.test/old"

// label sets key=value on each of nodes.
func (f *fixture) label(key, value string, nodes ...string) {
	f.t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	for _, n := range nodes {
		if _, err := f.env.Client.CoreV1().Nodes().Patch(f.ctx, n, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			f.t.Fatal(err)
		}
	}
}

// deployRequesting creates a Deployment of replicas pods (app=name) on the
// nodes nodeSelector matches, each requesting cpu and memory, and waits
// until they are Ready.
func (f *fixture) deployRequesting(name string, replicas int32, nodeSelector map[string]string, cpu, memory string) {
	f.t.Helper()
	labels := map[string]string{"app": name}
	tpl := podTemplate(labels, nodeSelector, nil)
	tpl.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tpl}}
	f.create(d, func() error {
		_, err := f.env.Client.AppsV1().Deployments(f.ns).Create(f.ctx, d, metav1.CreateOptions{})
		return err
	})
	f.waitPods("app="+name, int(replicas), isReady)
}

// poolPreflight runs the pool preflight of the nodes selector matches
// against the cluster, as the command does.
func (f *fixture) poolPreflight(selector string) *preflight.PoolReport {
	f.t.Helper()
	nodes, err := f.env.Client.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := preflight.GatherPool(f.ctx, f.env.Client, nil, nodes.Items, "", preflight.Flags{GracePeriodSeconds: -1})
	if err != nil {
		f.t.Fatal(err)
	}
	r := preflight.CheckPool(in)
	var out bytes.Buffer
	render.PoolPreflight(&out, r, 0)
	f.t.Logf("pool preflight of -l %s:\n%s", selector, out.String())
	return r
}

// Not enough capacity outside the pool: a pool of two nodes holds four
// pods of 1 CPU / 1 GiB that may run on two spare nodes of 1 CPU / 2 GiB
// each (their allocatable as the API server and kwok keep it). The pool
// preflight refuses with the numbers, and nothing is cordoned.
func TestPoolPreflightNoCapacityOutside(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p1, p2, s1, s2, selector := f.poolWithoutRoom()
	r := f.poolPreflight(selector)
	if len(r.Nodes) != 2 || r.PodCount() != 4 {
		t.Fatalf("pool of %d nodes, %d pods; want 2 nodes, 4 pods", len(r.Nodes), r.PodCount())
	}
	var blocker *preflight.Issue
	for i := range r.Blockers {
		if r.Blockers[i].Kind == "pool-no-capacity" {
			blocker = &r.Blockers[i]
		}
	}
	if blocker == nil || !blocker.Refuses || !r.Refused() {
		t.Fatalf("blockers = %+v, want %s refusing the drain", r.Blockers, "pool-no-capacity")
	}
	for _, want := range []string{"the pods the pool evicts request 4 CPU / 4 GiB / 4 pods",
		"the 2 schedulable node(s) outside it they may use have 2 CPU / 4 GiB / 220 pods free", "2 pod(s) would fit nowhere"} {
		if !strings.Contains(blocker.Message, want) {
			t.Errorf("blocker %q lacks %q", blocker.Message, want)
		}
	}
	if r.EstimatedSeconds != nil || !strings.HasPrefix(r.Verdict, "would not start: pool-no-capacity") {
		t.Errorf("estimate %v, verdict %q; want none and would not start", r.EstimatedSeconds, r.Verdict)
	}
	dry := f.drain("-l", selector, "--dry-run")
	if strings.Contains(dry.Stderr, "panic") {
		t.Errorf("--dry-run: %s", dry.Stderr)
	}
	for _, n := range []string{p1, p2, s1, s2} {
		if f.unschedulable(n) {
			t.Errorf("node %s cordoned by a preflight", n)
		}
	}
}

// A selector that matches every node leaves no node outside the pool:
// nowhere for the pods to go. Other tests' nodes share the cluster, so
// the test asserts on the reason for its own pod, not on the numbers.
func TestPoolPreflightEveryNode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	f.deploy("web", "web", 1, map[string]string{hostLabel: a}, nil)
	r := f.poolPreflight("")
	// A node another test creates after the list is outside the pool; our
	// pod, pinned to a, may use none.
	web := f.pods("app=web", onNode(a))
	if len(web) != 1 {
		t.Fatalf("%d pods of web on %s, want 1", len(web), a)
	}
	var reason string
	for _, u := range r.Capacity.Unplaced {
		if u.Pod == f.ns+"/"+web[0].Name {
			reason = u.Reason
		}
	}
	if !strings.HasPrefix(reason, "no schedulable node outside the pool") {
		t.Errorf("unplaced = %+v, want %s with no schedulable node outside the pool", r.Capacity.Unplaced, web[0].Name)
	}
	found := false
	for _, b := range r.Blockers {
		found = found || b.Kind == "pool-no-capacity" && b.Refuses && strings.Contains(b.Message, "nowhere")
	}
	if !found || !r.Refused() {
		t.Errorf("blockers = %+v, want %s: nowhere for the pods to go", r.Blockers, "pool-no-capacity")
	}
	if f.unschedulable(a) {
		t.Errorf("node %s cordoned by a preflight", a)
	}
}

// A selector that matches no node: one line on stderr, exit 1, nothing done.
func TestPoolSelectorMatchesNoNode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res := f.drain("-l", oldPoolLabel+"=none-"+f.ns, "--dry-run=client")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "no node matches -l") || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 {
		t.Errorf("exit %d stderr %q, want exit 1 and one line saying no node matches", res.ExitCode, res.Stderr)
	}
	if res.Stdout != "" {
		t.Errorf("stdout %q, want nothing", res.Stdout)
	}
}

// poolWithoutRoom makes a pool of two nodes (p1, p2, selected by the
// returned selector) holding four pods of 1 CPU / 1 GiB that may also run
// on two spare nodes of 1 CPU / 2 GiB each (s1, s2, their allocatable as
// the API server and kwok keep it): not enough room outside the pool.
func (f *fixture) poolWithoutRoom() (p1, p2, s1, s2, selector string) {
	t := f.t
	t.Helper()
	small := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"),
		corev1.ResourceMemory: resource.MustParse("2Gi"), corev1.ResourcePods: resource.MustParse("110")}
	p1, p2 = f.env.Node(t), f.env.Node(t)
	s1, s2 = f.env.NodeWith(t, small), f.env.NodeWith(t, small)
	for _, s := range []string{s1, s2} {
		n, err := f.env.Client.CoreV1().Nodes().Get(f.ctx, s, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Status.Allocatable[corev1.ResourceCPU]; got.Cmp(resource.MustParse("1")) != 0 {
			t.Fatalf("spare node %s has allocatable cpu %s, want 1", s, got.String())
		}
	}
	sel := f.pool(p1, p2, s1, s2)
	old := "o-" + rand.String(6)
	f.label(oldPoolLabel, old, p1, p2)
	f.cordon(s1, true)
	f.cordon(s2, true)
	f.deployRequesting("web", 4, sel, "1", "1Gi")
	// Right away: the node.kubernetes.io/unschedulable taint the node
	// lifecycle controller lifts seconds after the uncordon does not count.
	f.cordon(s1, false)
	f.cordon(s2, false)

	return p1, p2, s1, s2, oldPoolLabel + "=" + old
}

package drain_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// priorityClass creates a PriorityClass named after the test's namespace
// and suffix, deleted at cleanup, and returns its name.
func (f *fixture) priorityClass(suffix string, value int32) string {
	f.t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: f.ns + "-" + suffix}, Value: value}
	f.create(pc, func() error {
		_, err := f.env.Client.SchedulingV1().PriorityClasses().Create(f.ctx, pc, metav1.CreateOptions{})
		return err
	})
	f.t.Cleanup(func() {
		_ = f.env.Client.SchedulingV1().PriorityClasses().Delete(context.Background(), pc.Name, metav1.DeleteOptions{})
	})
	return pc.Name
}

// deletions is the test's own watch of the namespace's pods: when it
// first saw each pod's deletionTimestamp, and that timestamp.
type deletions struct {
	mu   sync.Mutex
	seen map[string]time.Time
	ts   map[string]time.Time
	stop context.CancelFunc
	done chan struct{}
}

func watchDeletions(t *testing.T, f *fixture) *deletions {
	t.Helper()
	list, err := f.env.Client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	d := &deletions{seen: map[string]time.Time{}, ts: map[string]time.Time{}, stop: cancel, done: make(chan struct{})}
	wi, err := f.env.Client.CoreV1().Pods(f.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(d.done)
		defer wi.Stop()
		for ev := range wi.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Bookmark || p.DeletionTimestamp == nil {
				continue
			}
			d.mu.Lock()
			if _, ok := d.seen[p.Name]; !ok {
				d.seen[p.Name], d.ts[p.Name] = time.Now(), p.DeletionTimestamp.Time
			}
			d.mu.Unlock()
		}
	}()
	return d
}

func (d *deletions) end() {
	d.stop()
	<-d.done
}

// TestDrainOrderPriorityEvictsInWaves: pods of priority 1000, 0 and -5
// (PriorityClasses) and one labelled cluster.x-k8s.io/drain=skip. The
// preflight prints the waves, lowest first, and leaves the labelled pod;
// the test's own pod watch sees every pod of a wave deleted before any of
// the next, and their deletionTimestamps in that order.
func TestDrainOrderPriorityEvictsInWaves(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	sel := f.pool(a)
	high, low := f.priorityClass("high", 1000), f.priorityClass("low", -5)
	f.deploy("high", "high", 2, sel, nil)
	f.deploy("mid", "mid", 1, sel, nil)
	f.deploy("low", "low", 1, sel, nil)
	f.deploy("keep", "keep", 1, sel, nil)
	for name, patch := range map[string]string{
		"high": fmt.Sprintf(`{"spec":{"template":{"spec":{"priorityClassName":%q}}}}`, high),
		"low":  fmt.Sprintf(`{"spec":{"template":{"spec":{"priorityClassName":%q}}}}`, low),
		"keep": fmt.Sprintf(`{"spec":{"template":{"metadata":{"labels":{%q:%q}}}}}`, preflight.DrainLabel, preflight.DrainSkip),
	} {
		if _, err := f.env.Client.AppsV1().Deployments(f.ns).Patch(f.ctx, name, "application/strategic-merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f.waitPods("app=high", 2, func(p *corev1.Pod) bool { return p.Spec.PriorityClassName == high && isReady(p) })
	f.waitPods("app=low", 1, func(p *corev1.Pod) bool { return p.Spec.PriorityClassName == low && isReady(p) })
	f.waitPods("app=keep", 1, func(p *corev1.Pod) bool { return p.Labels[preflight.DrainLabel] == preflight.DrainSkip && isReady(p) })
	e2e.WaitFor(t, e2e.SetupWait, "the pods of the old templates gone", func() bool {
		list, err := f.env.Client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 5
	})
	byApp := map[string][]string{}
	for _, p := range f.pods("", func(*corev1.Pod) bool { return true }) {
		byApp[p.Labels["app"]] = append(byApp[p.Labels["app"]], p.Name)
	}
	for _, names := range byApp {
		sort.Strings(names)
	}
	waves := [][]string{byApp["low"], byApp["mid"], byApp["high"]}

	res := f.drain(a, "--order", "priority", "--dry-run=client")
	expect(t, res, 0, "Wave 1 (priority -5): "+f.ns+"/"+byApp["low"][0], "Wave 2 (priority 0): "+f.ns+"/"+byApp["mid"][0],
		"Wave 3 (priority 1000): "+f.ns+"/"+strings.Join(byApp["high"], ", "+f.ns+"/"),
		"labelled cluster.x-k8s.io/drain=skip (Cluster API): not evicted")

	d := watchDeletions(t, f)
	res = f.drain(a, "--order", "priority", "--timeout", "120s")
	d.end()
	expect(t, res, 0, "node "+a+" drained: 4 pod(s) evicted")
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range waves {
		for _, name := range waves[i] {
			if _, ok := d.seen[name]; !ok {
				t.Fatalf("pod %s (wave %d) was never seen deleted", name, i+1)
			}
		}
	}
	if _, ok := d.seen[byApp["keep"][0]]; ok {
		t.Errorf("the pod labelled %s=%s was deleted", preflight.DrainLabel, preflight.DrainSkip)
	}
	for i := 0; i+1 < len(waves); i++ {
		for _, early := range waves[i] {
			for _, late := range waves[i+1] {
				if !d.seen[early].Before(d.seen[late]) || d.ts[late].Before(d.ts[early]) {
					t.Errorf("wave %d's %s (deleted seen %s, deletionTimestamp %s) not before wave %d's %s (%s, %s)",
						i+1, early, d.seen[early].Format(time.StampMilli), d.ts[early], i+2, late, d.seen[late].Format(time.StampMilli), d.ts[late])
				}
			}
		}
	}
}

// TestDrainOrderWaitsForWaitCompleted: a pod labelled
// cluster.x-k8s.io/drain=wait-completed is not evicted, and the drain
// (--order priority) does not end while it is there, saying on stderr
// that it waits: it ends once the test deletes it.
func TestDrainOrderWaitsForWaitCompleted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	sel := f.pool(a)
	f.deploy("web", "web", 1, sel, nil)
	f.deploy("job", "job", 1, sel, map[string]string{})
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"labels":{%q:%q}}}}}`, preflight.DrainLabel, preflight.DrainWaitCompleted)
	if _, err := f.env.Client.AppsV1().Deployments(f.ns).Patch(f.ctx, "job", "application/strategic-merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, e2e.SetupWait, "the labelled job pod alone", func() bool {
		list, err := f.env.Client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: "app=job"})
		return err == nil && len(list.Items) == 1 && list.Items[0].Labels[preflight.DrainLabel] == preflight.DrainWaitCompleted && isReady(&list.Items[0])
	})
	job := f.pods("app=job", onNode(a))[0].Name

	r := f.env.StartKubectl(t, 2*time.Minute, "graceful", "drain", "node", a, "--order", "priority")
	r.WaitOutput(t, time.Minute, "Waited for until they complete (cluster.x-k8s.io/drain=wait-completed): "+f.ns+"/"+job)
	r.WaitOutput(t, time.Minute, "gone")
	// The wait is said as it starts, not left silent until the pod ends.
	r.WaitStderr(t, time.Minute, "node "+a+": its evictions are done; waiting for "+f.ns+"/"+job+" to complete (cluster.x-k8s.io/drain=wait-completed) before reporting it drained")
	time.Sleep(3 * time.Second)
	if out := r.Stdout(); strings.Contains(out, "drained") {
		t.Fatalf("the drain ended while the wait-completed pod %s runs:\n%s", job, out)
	}
	if _, err := f.env.Client.CoreV1().Pods(f.ns).Get(f.ctx, job, metav1.GetOptions{}); err != nil {
		t.Fatalf("the wait-completed pod %s was removed by the drain: %v", job, err)
	}
	if err := f.env.Client.CoreV1().Pods(f.ns).Delete(f.ctx, job, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	res := r.Wait()
	t.Logf("drain: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	expect(t, res, 0, "node "+a+" drained: 1 pod(s) evicted")
}

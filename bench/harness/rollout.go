package harness

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// rolloutRun is one measured `watch deployment/NAME --restart -o json`.
type rolloutRun struct {
	lat     []time.Duration
	rss     int64
	watches int64
}

// rollout measures `kubectl graceful watch deployment/NAME --restart -o
// json` on a Deployment of RolloutReplicas pods against the same watch of a
// 1-replica Deployment, in the same run: delivery-to-line latency of every
// event line, peak RSS, and the watches the command opened.
func (h *harness) rollout(ctx context.Context) []Row {
	n := h.cfg.Scale.RolloutReplicas
	p99Row := fmt.Sprintf("watch deployment: delivery-to-line p99 (restart of %d replicas)", n)
	rssRow := fmt.Sprintf("watch deployment: peak RSS, %d replicas vs 1", n)
	watchRow := fmt.Sprintf("watch deployment: API watches opened, %d replicas vs 1", n)
	targets := []string{"<= 100 ms", "<= 1.5x", "same"}
	rows := func(reason string) []Row {
		return []Row{notMeasured(p99Row, targets[0], reason), notMeasured(rssRow, targets[1], reason), notMeasured(watchRow, targets[2], reason)}
	}
	if !h.selected("rollout") {
		return rows(notSelected)
	}
	if reason := h.missing("watch"); reason != "" {
		return rows(reason)
	}
	big, small, err := h.rolloutLive(ctx, n)
	if err != nil {
		return rows(err.Error())
	}
	p99 := percentile(big.lat, 99)
	return []Row{
		{What: p99Row, Ours: ms(p99) + fmt.Sprintf(" (%d lines)", len(big.lat)), Target: targets[0], Met: met(p99 <= 100*time.Millisecond)},
		{What: rssRow, Ours: mb(big.rss), Theirs: mb(small.rss) + " 1 replica", Ratio: ratio(float64(big.rss), float64(small.rss)), Target: targets[1], Met: met(float64(big.rss) <= 1.5*float64(small.rss))},
		{What: watchRow, Ours: fmt.Sprint(big.watches), Theirs: fmt.Sprintf("%d 1 replica", small.watches), Target: targets[2], Met: met(big.watches == small.watches)},
	}
}

// rolloutLive prepares a node and two namespaces (a Deployment of n
// replicas, one of 1), and measures one restart of each.
func (h *harness) rolloutLive(ctx context.Context, n int) (big, small rolloutRun, err error) {
	name := h.cfg.Scale.Fixture.Name
	node := fixture.Node(name, name+"-rollout-node", nil)
	nsBig, nsSmall := fixture.Namespace(name, name+"-rollout-big"), fixture.Namespace(name, name+"-rollout-one")
	cleanup := context.WithoutCancel(ctx)
	defer func() {
		for _, ns := range []string{nsBig.Name, nsSmall.Name} {
			_ = h.cs.CoreV1().Namespaces().Delete(cleanup, ns, metav1.DeleteOptions{})
		}
		h.forceDeletePods(cleanup, node.Name)
		_ = h.cs.CoreV1().Nodes().Delete(cleanup, node.Name, metav1.DeleteOptions{})
	}()
	if _, err := h.cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return big, small, err
	}
	if err := localcluster.WaitNodeReady(ctx, h.cs, node.Name, time.Minute); err != nil {
		return big, small, err
	}
	for _, c := range []struct {
		ns  string
		n   int
		out *rolloutRun
	}{{nsSmall.Name, 1, &small}, {nsBig.Name, n, &big}} {
		if _, err := h.cs.CoreV1().Namespaces().Create(ctx, fixture.Namespace(name, c.ns), metav1.CreateOptions{}); err != nil {
			return big, small, err
		}
		if *c.out, err = h.rolloutOne(ctx, c.ns, node.Name, c.n); err != nil {
			return big, small, err
		}
		h.logf("rollout of %d replicas: %d lines, p99 %s, %s, %d watches", c.n, len(c.out.lat), ms(percentile(c.out.lat, 99)), mb(c.out.rss), c.out.watches)
	}
	return big, small, nil
}

// rolloutOne creates the workload, waits until every replica is a ready
// endpoint, then measures the watch of its restart.
func (h *harness) rolloutOne(ctx context.Context, ns, node string, n int) (rolloutRun, error) {
	d, svc := fixture.RolloutWorkload(h.cfg.Scale.Fixture.Name, ns, "web", node, int32(n), time.Second)
	if _, err := h.cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return rolloutRun{}, err
	}
	if _, err := h.cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return rolloutRun{}, err
	}
	if err := fixture.WaitReadyEndpoints(ctx, h.cs, ns, "web", n, 5*time.Minute); err != nil {
		return rolloutRun{}, err
	}
	before, err := namespacedWatches(ctx, h.cs)
	if err != nil {
		return rolloutRun{}, err
	}
	lines := &lineClock{}
	res, err := measure(ctx, command{
		argv:   []string{h.cfg.Binary, "watch", "deployment/web", "-n", ns, "--restart", "-o", "json", "--settle", "1s", "--timeout", "10m", "--kubeconfig", h.cfg.Kubeconfig},
		ok:     []int{0, 2},
		stdout: lines,
	})
	if err != nil {
		return rolloutRun{}, err
	}
	lat, err := lines.latencies()
	if err != nil {
		return rolloutRun{}, err
	}
	watches, err := settledWatches(ctx, h, before)
	return rolloutRun{lat: lat, rss: res.MaxRSS, watches: watches}, err
}

// settledWatches waits until the apiserver has counted the ended watches
// (a watch is counted when it ends, when the server sees the connection
// close) and returns how many were opened since before.
func settledWatches(ctx context.Context, h *harness, before int64) (int64, error) {
	now, err := settledCount(ctx, func(ctx context.Context) (int64, error) { return namespacedWatches(ctx, h.cs) })
	return now - before, err
}

// settledCount reads count until two readings half a second apart agree
// (at most 10 readings): the apiserver counts a request when it ends, a
// watch when it sees the connection close.
func settledCount(ctx context.Context, count func(context.Context) (int64, error)) (int64, error) {
	last := int64(-1)
	for range 10 {
		now, err := count(ctx)
		if err != nil {
			return 0, err
		}
		if now == last {
			break
		}
		last = now
		time.Sleep(500 * time.Millisecond)
	}
	return last, nil
}

// forceDeletePods removes the pods left on node (kwok stops playing them
// once the node is gone).
func (h *harness) forceDeletePods(ctx context.Context, node string) {
	pods, err := h.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return
	}
	zero := int64(0)
	for _, p := range pods.Items {
		_ = h.cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}
}

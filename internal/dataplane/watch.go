package dataplane

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// watch starts the pod and EndpointSlice informers of the namespace, routes
// the current endpoints at once and every later change Propagation late.
func (d *DataPlane) watch(ctx context.Context) error {
	f := informers.NewSharedInformerFactoryWithOptions(d.cfg.Client, 0, informers.WithNamespace(d.cfg.Namespace))
	pods := f.Core().V1().Pods().Informer()
	slices := f.Discovery().V1().EndpointSlices().Informer()
	var synced atomic.Bool
	var seq atomic.Uint64
	reroute := func() {
		d.route(seq.Add(1), d.routable(slices.GetStore().List()), !synced.Load())
	}
	onPod := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok {
			d.podChanged(p)
		}
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onPod, UpdateFunc: func(_, o any) { onPod(o) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if p, ok := o.(*corev1.Pod); ok {
				d.podGone(p.Name)
			}
		}}); err != nil {
		return err
	}
	onSlice := func(any) { reroute() }
	if _, err := slices.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onSlice, UpdateFunc: func(_, o any) { onSlice(o) }, DeleteFunc: onSlice}); err != nil {
		return err
	}
	f.Start(ctx.Done())
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(sctx.Done(), pods.HasSynced, slices.HasSynced) {
		return fmt.Errorf("simulated data plane: the watches of namespace %s did not sync", d.cfg.Namespace)
	}
	reroute()
	synced.Store(true)
	d.wg.Go(func() { <-ctx.Done(); f.Shutdown() })
	return nil
}

// routable returns the pods kube-proxy sends the Service's traffic to: its
// ready endpoints, or when none is ready its serving and terminating ones.
func (d *DataPlane) routable(objs []any) []string {
	sel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: d.cfg.Service})
	var ready, fallback []string
	for _, o := range objs {
		s, ok := o.(*discoveryv1.EndpointSlice)
		if !ok || !sel.Matches(labels.Set(s.Labels)) {
			continue
		}
		for _, ep := range s.Endpoints {
			if ep.TargetRef == nil || ep.TargetRef.Kind != "Pod" {
				continue
			}
			c := ep.Conditions
			switch {
			case c.Ready == nil || *c.Ready:
				ready = append(ready, ep.TargetRef.Name)
			case (c.Serving == nil || *c.Serving) && c.Terminating != nil && *c.Terminating:
				fallback = append(fallback, ep.TargetRef.Name)
			}
		}
	}
	if len(ready) == 0 {
		ready = fallback
	}
	sort.Strings(ready)
	return ready
}

// podChanged starts a pod's backend when it runs, schedules its SIGTERM
// when it is deleted and removes it when its containers have exited.
func (d *DataPlane) podChanged(p *corev1.Pod) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.backends[p.Name]
	if b == nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
		nb, err := newBackend(p.Name)
		if err != nil {
			return
		}
		d.backends[p.Name], b = nb, nb
	}
	if b == nil {
		return
	}
	switch {
	case exited(p):
		b.gone()
		delete(d.backends, p.Name)
	case p.DeletionTimestamp != nil:
		b.terminate(preStopDelay(p))
	}
}

func (d *DataPlane) podGone(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b := d.backends[name]; b != nil {
		b.gone()
		delete(d.backends, name)
	}
}

// exited reports whether every container has terminated or the pod is in
// a terminal phase.
func exited(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	return len(p.Status.ContainerStatuses) > 0 && !slices.ContainsFunc(p.Status.ContainerStatuses,
		func(cs corev1.ContainerStatus) bool { return cs.State.Terminated == nil })
}

// preStopDelay is the longest preStop delay of the pod's containers, as
// the termination Stages count it (pkg/prestop; unknown durations count 0),
// or 0 when the simulation says the hook fails.
func preStopDelay(p *corev1.Pod) time.Duration {
	if p.Annotations[sim.PreStopFails] == "true" {
		return 0
	}
	var longest int64
	for _, c := range p.Spec.Containers {
		s, _, _ := prestop.Duration(c) // 0 when unknown, as the Stages count it
		longest = max(longest, s)
	}
	return time.Duration(longest) * time.Second
}

package drain

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// evictWaves evicts pods in waves of one priority each, lowest first
// (preflight's Waves): a wave starts once every pod of the one before is
// gone, and none starts after a wave failed or ctx ended.
func (e *evictor) evictWaves(ctx context.Context, pods []corev1.Pod) error {
	by := map[int32][]corev1.Pod{}
	for _, p := range pods {
		// spec.priority, which admission sets from its PriorityClass, as
		// the preflight's Waves sort by.
		prio := ptr.Deref(p.Spec.Priority, 0)
		by[prio] = append(by[prio], p)
	}
	for _, p := range slices.Sorted(maps.Keys(by)) {
		if err := e.evictTogether(ctx, by[p]); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// waitCompleted waits until each pod of keys ("namespace/name", labelled
// wait-completed) has completed (phase Succeeded or Failed) or is gone,
// as Cluster API's drain waits for them, or ctx ends.
func (d *nodeRun) waitCompleted(ctx context.Context, keys []string) error {
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		ns, name, _ := strings.Cut(key, "/")
		wg.Go(func() { errs[i] = d.waitPodCompleted(ctx, ns, name) })
	}
	wg.Wait()
	return utilerrors.NewAggregate(errs)
}

// waitPodCompleted waits, from a watch of the pod, until it completed or is gone.
func (d *nodeRun) waitPodCompleted(ctx context.Context, namespace, name string) error {
	lw := cache.NewFilteredListWatchFromClient(d.Client.CoreV1().RESTClient(), "pods", namespace, byName(name))
	gone := func(store cache.Store) (bool, error) {
		_, exists, err := store.GetByKey(namespace + "/" + name)
		return !exists, err
	}
	_, err := watchtools.UntilWithSync(ctx, lw, &corev1.Pod{}, gone, func(ev watch.Event) (bool, error) {
		p, ok := ev.Object.(*corev1.Pod)
		return ev.Type == watch.Deleted || ok && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for pods/%q -n %q (labelled %s=%s) to complete: %w", name, namespace,
			preflight.DrainLabel, preflight.DrainWaitCompleted, err)
	}
	return nil
}

// byName selects one object by name in a list or watch.
func byName(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
}

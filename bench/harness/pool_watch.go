package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// poolWatch follows a namespace's pods during one drain, from the
// resourceVersion of a List taken just before it, so that no event between
// the two is lost: the same count for every tool, taken from the pods
// themselves and not from what the tool says.
type poolWatch struct {
	// start maps the pods bound to a node and not terminating at the List
	// to their node.
	start map[types.UID]string
	w     watch.Interface
	done  chan struct{}

	mu      sync.Mutex
	events  []podEvent
	stopped bool
	// ended says why the watch closed on its own, which makes the tally
	// unknown.
	ended error
}

func startPoolWatch(ctx context.Context, cs kubernetes.Interface, namespace string) (*poolWatch, error) {
	list, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pw := &poolWatch{start: map[types.UID]string{}, done: make(chan struct{})}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			pw.start[p.UID] = p.Spec.NodeName
		}
	}
	if pw.w, err = cs.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion}); err != nil {
		return nil, err
	}
	go pw.follow()
	return pw, nil
}

func (pw *poolWatch) follow() {
	defer close(pw.done)
	for ev := range pw.w.ResultChan() {
		pod, ok := ev.Object.(*corev1.Pod)
		pw.mu.Lock()
		if !ok {
			pw.ended = fmt.Errorf("pod watch failed: %v", apierrors.FromObject(ev.Object))
			pw.mu.Unlock()
			return
		}
		pw.events = append(pw.events, podEvent{UID: pod.UID, Node: pod.Spec.NodeName,
			Deleting: pod.DeletionTimestamp != nil || ev.Type == watch.Deleted, Gone: ev.Type == watch.Deleted})
		pw.mu.Unlock()
	}
	pw.mu.Lock()
	if !pw.stopped && pw.ended == nil {
		pw.ended = errors.New("pod watch closed by the server before the drain ended")
	}
	pw.mu.Unlock()
}

// finish waits up to timeout until the watch has shown every pod bound to
// a pool node gone and then no event for half a second (the drain has
// returned with the pool empty, so every deletion is on its way), stops
// the watch and returns the tally.
func (pw *poolWatch) finish(ctx context.Context, pool map[string]bool, timeout time.Duration) (evictionTally, error) {
	defer pw.stop()
	seen, quietSince := -1, time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		pw.mu.Lock()
		defer pw.mu.Unlock()
		if pw.ended != nil {
			return false, pw.ended
		}
		if len(pw.events) != seen {
			seen, quietSince = len(pw.events), time.Now()
		}
		return poolPodsGone(pw.start, pool, pw.events) && time.Since(quietSince) >= 500*time.Millisecond, nil
	})
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if err != nil {
		if pw.ended != nil {
			return evictionTally{}, pw.ended
		}
		return evictionTally{}, fmt.Errorf("pod watch: pool pods not all seen gone after %s", timeout)
	}
	return tallyEvictions(pw.start, pool, pw.events), nil
}

// stop ends the watch (finish calls it; a caller giving up before the
// drain calls it alone).
func (pw *poolWatch) stop() {
	pw.mu.Lock()
	pw.stopped = true
	pw.mu.Unlock()
	pw.w.Stop()
	<-pw.done
}

package localcluster

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/util/podutils"
)

// WaitReadyPods polls until namespace ns has at least n Ready pods that are
// not terminating, and returns them; after timeout it returns an error
// with how many there were.
func WaitReadyPods(ctx context.Context, cs kubernetes.Interface, ns string, n int, timeout time.Duration) ([]corev1.Pod, error) {
	var ready []corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		ready = slices.DeleteFunc(l.Items, func(p corev1.Pod) bool { return p.DeletionTimestamp != nil || !podutils.IsPodReady(&p) })
		return len(ready) >= n, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%d Ready pods wanted in %s, have %d: %w", n, ns, len(ready), err)
	}
	return ready, nil
}

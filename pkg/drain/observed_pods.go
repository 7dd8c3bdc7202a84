package drain

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// CoreV1 returns the core/v1 client whose reads of one pod are answered
// from the node's pod watch (nodePods) when it can answer, from the API
// server otherwise. The library reads each evicted pod once a second
// until it is gone; the watch makes that one watch per node.
func (c *observedClient) CoreV1() corev1client.CoreV1Interface {
	if c.obs.pods == nil {
		return c.Interface.CoreV1()
	}
	return &observedCore{CoreV1Interface: c.Interface.CoreV1(), pods: c.obs.pods}
}

type observedCore struct {
	corev1client.CoreV1Interface
	pods *nodePods
}

// Pods returns the pod client of namespace with watched reads.
func (c *observedCore) Pods(namespace string) corev1client.PodInterface {
	return &observedPods{PodInterface: c.CoreV1Interface.Pods(namespace), namespace: namespace, pods: c.pods}
}

type observedPods struct {
	corev1client.PodInterface
	namespace string
	pods      *nodePods
}

// Get answers from the watch a read of the latest version (no
// resourceVersion asked) that it can answer, and sends the rest.
func (p *observedPods) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Pod, error) {
	if opts.ResourceVersion == "" {
		if pod, ok, err := watchedPod(p.pods, p.namespace, name); ok {
			return pod, err
		}
	}
	return p.PodInterface.Get(ctx, name, opts)
}

// watchedPod is the watch's answer for pod namespace/name, as a GET would
// give it (NotFound for a pod seen to leave), and whether it has one.
func watchedPod(pods *nodePods, namespace, name string) (*corev1.Pod, bool, error) {
	pod, gone, known := pods.lookup(namespace, name)
	switch {
	case !known:
		return nil, false, nil
	case gone:
		return nil, true, apierrors.NewNotFound(corev1.Resource("pods"), name)
	}
	return pod, true, nil
}

// reread reads pod namespace/name again before a retry of its eviction:
// from the node's watch when it can answer, unless fromServer (after a
// 409: the pod changed since the version we hold, so the watch may lag).
func (o *evictionRecorder) reread(ctx context.Context, namespace, name string, fromServer bool) (*corev1.Pod, error) {
	if !fromServer {
		if pod, ok, err := watchedPod(o.pods, namespace, name); ok {
			return pod, err
		}
	}
	return o.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
}

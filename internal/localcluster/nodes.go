package localcluster

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// FakeNodeAnnotation marks a Node that kwok manages (keeps Ready, runs its
// pods, plays the Stages on them).
const FakeNodeAnnotation = "kwok.x-k8s.io/node"

// Client returns a clientset for the kubeconfig at path, each request
// bounded to 10 s.
func Client(path string) (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = 10 * time.Second
	return kubernetes.NewForConfig(cfg)
}

// ready returns nil when the API server behind kubeconfig answers /readyz.
func ready(ctx context.Context, kubeconfig string) error {
	cs, err := Client(kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err
}

// NewFakeNode returns a Node object that kwok will manage: it turns Ready
// within a second of being created.
func NewFakeNode(name string, labels map[string]string) *corev1.Node {
	l := map[string]string{
		"kubernetes.io/hostname": name,
		"kubernetes.io/os":       "linux",
		"type":                   "kwok",
	}
	maps.Copy(l, labels)
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        name,
		Labels:      l,
		Annotations: map[string]string{FakeNodeAnnotation: "fake"},
	}}
}

// ensureNodes creates kwok-node-0..n-1 where missing and waits until all are
// Ready.
func ensureNodes(ctx context.Context, kubeconfig string, n int) error {
	cs, err := Client(kubeconfig)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		node := NewFakeNode(fmt.Sprintf("kwok-node-%d", i), nil)
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		if err := WaitNodeReady(ctx, cs, node.Name, time.Minute); err != nil {
			return err
		}
	}
	return nil
}

// WaitNodeReady polls until the node's Ready condition is True, or returns
// an error naming the node after timeout.
func WaitNodeReady(ctx context.Context, cs kubernetes.Interface, name string, timeout time.Duration) error {
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		return NodeReady(ctx, cs, name) == nil, nil
	})
	if err != nil {
		return fmt.Errorf("node %s not Ready after %s", name, timeout)
	}
	return nil
}

// NodeReady returns nil when the node's Ready condition is True, and an
// error saying why not otherwise (not found, no condition yet, its
// message).
func NodeReady(ctx context.Context, cs kubernetes.Interface, name string) error {
	node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				return nil
			}
			return fmt.Errorf("node %s is not Ready: %s", name, c.Message)
		}
	}
	return fmt.Errorf("node %s has no Ready condition yet", name)
}

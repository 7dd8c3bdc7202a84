package drain

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// retryingClient is a kubernetes.Interface whose reads of pods and nodes,
// and node patches, are retried with the backoff while they fail for a
// transient reason (eviction.Transient: an API server restarting, a
// connection reset), until the request's context ends: a short outage
// delays the drain instead of failing it. Node patches carry a
// resourceVersion precondition (nodeCordon), so sending one again is safe.
type retryingClient struct {
	kubernetes.Interface
	backoff Backoff
	// ctx bounds the retries of calls that take no context (discovery);
	// nil retries them not at all.
	ctx context.Context
	// failures keeps the final errors that are the cluster failing us;
	// nil keeps none.
	failures *apiFailures
}

// Discovery retries the library's check of the eviction subresource.
func (c *retryingClient) Discovery() discovery.DiscoveryInterfaces {
	return &retryingDiscovery{DiscoveryInterfaces: c.Interface.Discovery(), c: c}
}

type retryingDiscovery struct {
	discovery.DiscoveryInterfaces
	c *retryingClient
}

func (d *retryingDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	if d.c.ctx == nil {
		return d.DiscoveryInterfaces.ServerResourcesForGroupVersion(gv)
	}
	return retryTransient(d.c.ctx, d.c.backoff, d.c.failures, func() (*metav1.APIResourceList, error) {
		return d.DiscoveryInterfaces.ServerResourcesForGroupVersion(gv)
	})
}

func (c *retryingClient) CoreV1() corev1client.CoreV1Interface {
	return &retryingCore{CoreV1Interface: c.Interface.CoreV1(), backoff: c.backoff, failures: c.failures}
}

type retryingCore struct {
	corev1client.CoreV1Interface
	backoff  Backoff
	failures *apiFailures
}

func (c *retryingCore) Pods(namespace string) corev1client.PodInterface {
	return &retryingPods{PodInterface: c.CoreV1Interface.Pods(namespace), backoff: c.backoff, failures: c.failures}
}

func (c *retryingCore) Nodes() corev1client.NodeInterface {
	return &retryingNodes{NodeInterface: c.CoreV1Interface.Nodes(), backoff: c.backoff, failures: c.failures}
}

type retryingPods struct {
	corev1client.PodInterface
	backoff  Backoff
	failures *apiFailures
}

func (p *retryingPods) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Pod, error) {
	return retryTransient(ctx, p.backoff, p.failures, func() (*corev1.Pod, error) { return p.PodInterface.Get(ctx, name, opts) })
}

func (p *retryingPods) List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	return retryTransient(ctx, p.backoff, p.failures, func() (*corev1.PodList, error) { return p.PodInterface.List(ctx, opts) })
}

type retryingNodes struct {
	corev1client.NodeInterface
	backoff  Backoff
	failures *apiFailures
}

func (n *retryingNodes) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Node, error) {
	return retryTransient(ctx, n.backoff, n.failures, func() (*corev1.Node, error) { return n.NodeInterface.Get(ctx, name, opts) })
}

func (n *retryingNodes) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*corev1.Node, error) {
	return retryTransient(ctx, n.backoff, n.failures, func() (*corev1.Node, error) { return n.NodeInterface.Patch(ctx, name, pt, data, opts, sub...) })
}

// retryTransient calls fn until it succeeds or fails for a reason that is not
// transient, waiting b.delay(n) between calls, or a throttling answer's
// Retry-After when longer; when ctx ends it returns fn's last error. A
// final error while ctx is live goes to f (note).
func retryTransient[T any](ctx context.Context, b Backoff, f *apiFailures, fn func() (T, error)) (T, error) {
	for n := 1; ; n++ {
		v, err := fn()
		if !eviction.Transient(err) || !sleep(ctx, max(b.delay(n), eviction.Read(err).RetryAfter)) {
			if ctx.Err() == nil {
				f.note(err)
			}
			return v, err
		}
	}
}

// sleep waits d and reports true, or false at once when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

package eviction

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Send posts one Eviction of pod namespace/name with opts, or, with
// deleteInstead, sends one DELETE of it (drain's --disable-eviction and
// --delete-after), built as client-go's typed Evict and Delete build them
// but with rest.Request.MaxRetries(0): client-go otherwise sends a request
// answered 429 or 5xx with a Retry-After header again itself, up to 10
// times, sleeping each Retry-After unseen by its caller, who then counts
// one attempt where the server saw up to 11 and cannot say why it waits.
// The wait still reaches the caller: client-go puts the header into the
// error's details.retryAfterSeconds, which Read returns as RetryAfter. A
// clientset whose REST clients are not client-go's own (the fake
// clientset, which never resends) gets the typed calls. The error is
// client-go's, for Read.
func Send(ctx context.Context, c kubernetes.Interface, namespace, name string, opts metav1.DeleteOptions, deleteInstead bool) error {
	if deleteInstead {
		if rc := restClient(c.CoreV1().RESTClient()); rc != nil {
			return rc.Delete().Namespace(namespace).Resource("pods").Name(name).
				Body(&opts).MaxRetries(0).Do(ctx).Error()
		}
		return c.CoreV1().Pods(namespace).Delete(ctx, name, opts)
	}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, DeleteOptions: &opts}
	if rc := restClient(c.PolicyV1().RESTClient()); rc != nil {
		return rc.Post().AbsPath("/api/v1").Namespace(namespace).Resource("pods").Name(name).
			SubResource("eviction").Body(ev).MaxRetries(0).Do(ctx).Error()
	}
	return c.PolicyV1().Evictions(namespace).Evict(ctx, ev)
}

// restClient is r when it is client-go's own REST client, nil otherwise
// (a fake clientset's is a nil one).
func restClient(r rest.Interface) *rest.RESTClient {
	rc, _ := r.(*rest.RESTClient)
	return rc
}

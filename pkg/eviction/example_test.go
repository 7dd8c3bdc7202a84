package eviction_test

import (
	"context"
	"fmt"
	"net/http"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// An eviction a PodDisruptionBudget refuses: the API server answers 429
// with a DisruptionBudget cause and a Retry-After (here from a fake
// clientset answering as pkg/registry/core/pod/storage/eviction.go does).
// Read tells it from throttling, which is a 429 too.
func ExampleRead() {
	client := fake.NewClientset()
	client.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
			Message: "Cannot evict pod as it would violate the pod's disruption budget.",
			Details: &metav1.StatusDetails{RetryAfterSeconds: 10, Causes: []metav1.StatusCause{{
				Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 2 healthy pods and has 2 currently"}}},
		}}
	})
	err := client.PolicyV1().Evictions("shop").Evict(context.Background(),
		&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-7d4b9c-x2k4q"}})

	a := eviction.Read(err)
	fmt.Println(a.Kind, a.Retryable(), a.RetryAfter)
	fmt.Println(a.Cause)
	// Output:
	// budget-refused true 10s
	// The disruption budget web needs 2 healthy pods and has 2 currently
}

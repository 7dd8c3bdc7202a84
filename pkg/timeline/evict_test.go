package timeline

import (
	"errors"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEvictionCauseReadsTheBudget(t *testing.T) {
	err := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 429,
		Reason:  metav1.StatusReasonTooManyRequests,
		Message: "Cannot evict pod as it would violate the pod's disruption budget.",
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause,
			Message: "The disruption budget web needs 2 healthy pods and has 2 currently"}}}}}
	if got := EvictionCause(err); got != "The disruption budget web needs 2 healthy pods and has 2 currently" {
		t.Errorf("cause %q", got)
	}
	noCause := &apierrors.StatusError{ErrStatus: metav1.Status{Code: 429, Message: "too many requests"}}
	if got := EvictionCause(noCause); got != "too many requests" {
		t.Errorf("cause without details %q", got)
	}
	if got := EvictionCause(errors.New("plain")); got != "plain" {
		t.Errorf("plain error %q", got)
	}
}

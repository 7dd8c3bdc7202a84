package drain

import (
	"errors"
	"net"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestIsAPIFailure(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	nsTerminating := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Message: "namespace shop is being terminated"}}}}}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"forbidden (RBAC)", apierrors.NewForbidden(pods, "web-0", errors.New("no RBAC")), true},
		{"unauthorized", apierrors.NewUnauthorized("expired token"), true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"503", apierrors.NewServiceUnavailable("etcd down"), true},
		{"namespace terminating", nsTerminating, false},
		{"budget refusal", apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0), false},
		{"not found", apierrors.NewNotFound(pods, "web-0"), false},
		{"admission denial", apierrors.NewBadRequest("denied by policy"), false},
		// Admission's denials carry RBAC's 403 and 401 too, or a 5xx.
		{"policy denial 403", apierrors.NewForbidden(pods, "web-0", errors.New("ValidatingAdmissionPolicy 'freeze' with binding 'shop' denied request: frozen")), false},
		{"policy denial 401", &apierrors.StatusError{ErrStatus: metav1.Status{Code: 401, Reason: metav1.StatusReasonUnauthorized,
			Message: `pods "web-0" is forbidden: ValidatingAdmissionPolicy 'freeze' denied request: frozen`}}, false},
		{"webhook denial 403", &apierrors.StatusError{ErrStatus: metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
			Message: `admission webhook "evictions.example.com" denied the request: frozen`}}, false},
		{"webhook denial 500", &apierrors.StatusError{ErrStatus: metav1.Status{Code: 500,
			Message: `admission webhook "evictions.example.com" denied the request: frozen`}}, false},
		// A message that only looks like a transport failure is not one.
		{"admission message naming a refused connection", apierrors.NewBadRequest("webhook says: connection refused"), false},
	} {
		if got := isAPIFailure(c.err); got != c.want {
			t.Errorf("%s: isAPIFailure = %v, want %v", c.name, got, c.want)
		}
	}
}

package drain

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// apiFailures keeps the first error of a node's drain that was the cluster
// failing us rather than a pod being refused, as the client saw it: the
// node's outcome (error, not blocked) is read from it, never from the
// text of the pods' errors.
type apiFailures struct {
	mu  sync.Mutex
	err error
}

// note records err, a request's final error (its retries over, its
// context not ended), when it is such a failure. A nil receiver records
// nothing.
func (f *apiFailures) note(err error) {
	if f == nil || !isAPIFailure(err) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// first returns the first failure noted, nil when none was.
func (f *apiFailures) first() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// isAPIFailure reports whether err is the cluster failing us: RBAC (a
// 403, except the NamespaceTerminating one the drain retries), an
// authentication failure (401), or the API server unreachable or failing
// (eviction.Transient: a transport error, a 5xx). An answer about the pod
// (a budget's 429, throttling, 404, an admission webhook's or policy's
// denial, whatever its code: 403, 401 or 422) is not.
func isAPIFailure(err error) bool {
	a := eviction.Read(err)
	switch {
	case err == nil, a.Retryable(), a.Kind == eviction.NotFound, a.Kind == eviction.AdmissionRefused:
		return false
	case apierrors.IsForbidden(err):
		return !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
	case apierrors.IsUnauthorized(err):
		return true
	}
	return eviction.Transient(err)
}

// causedError is an error whose message is msg, as the user reads it, and
// whose chain holds cause, the API error the client saw: the node's error
// joins the messages of its pods' errors, and without it a caller could
// no longer ask apierrors.IsForbidden of what Drain or DrainPool returns.
type causedError struct {
	msg   string
	cause error
}

func (e *causedError) Error() string { return e.msg }
func (e *causedError) Unwrap() error { return e.cause }

// withCause returns an error saying msg whose chain holds cause (nil:
// none).
func withCause(msg string, cause error) error { return &causedError{msg: msg, cause: cause} }

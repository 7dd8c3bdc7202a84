package eviction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// statusError decodes body, a Status as the API server writes it, into the
// error client-go returns for it (apierrors.FromObject, as rest.Request
// does for a non-2xx response carrying a Status).
func statusError(t *testing.T, body string) error {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("bad test body %s: %v", body, err)
	}
	return apierrors.FromObject(&st)
}

// Bodies the API server sends in answer to an eviction.
const (
	// checkAndDecrement, the budget allowing no disruption now.
	budgetBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
		"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web needs 2 healthy pods and has 2 currently"}]},"code":429}`
	// createTooManyRequestsError, the budget's status older than its spec.
	processingBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
		"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web is still being processed by the server."}],"retryAfterSeconds":10},"code":429}`
	// A DisruptionBudget cause that carries no message.
	emptyCauseBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
		"details":{"causes":[{"reason":"DisruptionBudget"}]},"code":429}`
	// Two budgets on one pod: a Status returned, not an error, hence no reason.
	twoBudgetsBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500}`
	// multipleBudgetsMessage is the Status message of the eviction
	// subresource's 500 (pkg/registry/core/pod/storage/eviction.go).
	multipleBudgetsMessage = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	// The NamespaceLifecycle admission plugin.
	terminatingBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"pods \"web-a\" is forbidden: unable to create new content in namespace shop because it is being terminated",
		"reason":"Forbidden","details":{"name":"web-a","kind":"pods","causes":[{"reason":"NamespaceTerminating",
		"message":"namespace shop is being terminated","field":"metadata.namespace"}]},"code":403}`
	notFoundBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"web-a\" not found",
		"reason":"NotFound","details":{"name":"web-a","kind":"pods"},"code":404}`
	rbacBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"pods \"web-a\" is forbidden: User \"dev\" cannot create resource \"pods/eviction\" in API group \"\" in the namespace \"shop\"",
		"reason":"Forbidden","details":{"name":"web-a","kind":"pods"},"code":403}`
	// A ValidatingAdmissionPolicy denying CREATE of pods/eviction, as the
	// v1.37 API server sent it (reason Invalid, the default).
	policyBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"pods \"p\" is forbidden: ValidatingAdmissionPolicy 'freeze-evictions' with binding 'freeze-evictions-shop' denied request: evictions are frozen for the change window",
		"reason":"Invalid","details":{"name":"p","kind":"pods","causes":[{"message":"ValidatingAdmissionPolicy 'freeze-evictions' with binding 'freeze-evictions-shop' denied request: evictions are frozen for the change window"}]},"code":422}`
	// The same policy whose validation says reason Forbidden: RBAC's code.
	policyForbiddenBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"pods \"p\" is forbidden: ValidatingAdmissionPolicy 'freeze-evictions' with binding 'freeze-evictions-shop' denied request: evictions are frozen for the change window",
		"reason":"Forbidden","details":{"name":"p","kind":"pods","causes":[{"message":"ValidatingAdmissionPolicy 'freeze-evictions' with binding 'freeze-evictions-shop' denied request: evictions are frozen for the change window"}]},"code":403}`
	// A validating webhook's denial (controller-runtime's Denied: code 403,
	// reason Forbidden), as webhook/errors.ToStatusErr passes it on.
	webhookBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"admission webhook \"evictions.example.com\" denied the request: change freeze until 18:00",
		"reason":"Forbidden","code":403}`
	// A webhook that denies with 429 and no message: not throttling.
	webhookTooManyBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"admission webhook \"evictions.example.com\" denied the request without explanation","code":429}`
	// A webhook that denies with 500: not the API server failing.
	webhookInternalBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"admission webhook \"evictions.example.com\" denied the request: oops","code":500}`
	// RBAC's 403 for a user whose name reads like a policy's denial.
	rbacOddUserBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"pods \"web-a\" is forbidden: User \"x is forbidden: ValidatingAdmissionPolicy 'y'\" cannot create resource \"pods/eviction\" in API group \"\" in the namespace \"shop\"",
		"reason":"Forbidden","details":{"name":"web-a","kind":"pods"},"code":403}`
)

func TestRead(t *testing.T) {
	// API Priority and Fairness answers 429 in plain text with a
	// Retry-After header; client-go turns that into this error.
	throttled := apierrors.NewGenericServerResponse(429, "POST", schema.GroupResource{Resource: "pods"}, "web-a",
		"Too many requests, please try again later.\n", 1, true)
	cases := []struct {
		name      string
		err       error
		kind      AnswerKind
		cause     string
		retry     time.Duration
		retryable bool
	}{
		{"accepted", nil, Accepted, "", 0, false},
		{"budget allows no disruption", statusError(t, budgetBody), BudgetRefused,
			"The disruption budget web needs 2 healthy pods and has 2 currently", 0, true},
		{"budget still being processed", statusError(t, processingBody), BudgetRefused,
			"The disruption budget web is still being processed by the server.", 10 * time.Second, true},
		{"budget cause without a message", statusError(t, emptyCauseBody), BudgetRefused,
			"Cannot evict pod as it would violate the pod's disruption budget.", 0, true},
		{"budget refusal wrapped", fmt.Errorf("evicting: %w", statusError(t, budgetBody)), BudgetRefused,
			"The disruption budget web needs 2 healthy pods and has 2 currently", 0, true},
		{"429 without details", &apierrors.StatusError{ErrStatus: metav1.Status{Code: 429, Message: "too many requests"}},
			Throttled, "too many requests", 0, true},
		{"429 from priority and fairness", throttled, Throttled, throttled.Error(), time.Second, true},
		{"pod under two budgets", statusError(t, twoBudgetsBody), MultipleBudgets, multipleBudgetsMessage, 0, false},
		{"namespace terminating", statusError(t, terminatingBody), NamespaceTerminating,
			"namespace shop is being terminated", 0, true},
		{"pod gone", statusError(t, notFoundBody), NotFound, `pods "web-a" not found`, 0, false},
		{"RBAC", statusError(t, rbacBody), Forbidden,
			`pods "web-a" is forbidden: User "dev" cannot create resource "pods/eviction" in API group "" in the namespace "shop"`, 0, false},
		{"policy 422", statusError(t, policyBody), AdmissionRefused,
			`pods "p" is forbidden: ValidatingAdmissionPolicy 'freeze-evictions' with binding 'freeze-evictions-shop' denied request: evictions are frozen for the change window`, 0, false},
		{"policy 403", statusError(t, policyForbiddenBody), AdmissionRefused,
			`pods "p" is forbidden: ValidatingAdmissionPolicy 'freeze-evictions' with binding 'freeze-evictions-shop' denied request: evictions are frozen for the change window`, 0, false},
		{"webhook 403", statusError(t, webhookBody), AdmissionRefused,
			`admission webhook "evictions.example.com" denied the request: change freeze until 18:00`, 0, false},
		{"webhook 429", statusError(t, webhookTooManyBody), AdmissionRefused,
			`admission webhook "evictions.example.com" denied the request without explanation`, 0, false},
		{"webhook 500", statusError(t, webhookInternalBody), AdmissionRefused,
			`admission webhook "evictions.example.com" denied the request: oops`, 0, false},
		{"RBAC, a user named like a policy", statusError(t, rbacOddUserBody), Forbidden,
			`pods "web-a" is forbidden: User "x is forbidden: ValidatingAdmissionPolicy 'y'" cannot create resource "pods/eviction" in API group "" in the namespace "shop"`, 0, false},
		{"not an API error", errors.New("dial tcp 127.0.0.1:6443: connect: connection refused"), Failed,
			"dial tcp 127.0.0.1:6443: connect: connection refused", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Read(c.err)
			if a.Kind != c.kind || a.Cause != c.cause || a.RetryAfter != c.retry {
				t.Errorf("Read = %+v, want kind %s, cause %q, retry after %s", a, c.kind, c.cause, c.retry)
			}
			if a.Retryable() != c.retryable {
				t.Errorf("Retryable() = %v, want %v", a.Retryable(), c.retryable)
			}
		})
	}
}

func TestWithTimeoutNamesTheTimeout(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	var te *TimeoutError
	if !errors.As(context.Cause(ctx), &te) || te.Error() != "--timeout 1ms reached" {
		t.Fatalf("cause = %v, want --timeout 1ms reached", context.Cause(ctx))
	}
	interrupted, stop := WithTimeout(context.Background(), time.Hour)
	stop()
	if errors.As(context.Cause(interrupted), new(*TimeoutError)) {
		t.Error("a context cancelled before its timeout counts as timed out")
	}
	unlimited, stop := WithTimeout(context.Background(), 0)
	defer stop()
	if _, ok := unlimited.Deadline(); ok {
		t.Error("timeout 0 set a deadline, want none")
	}
}

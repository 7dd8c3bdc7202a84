package eviction

import (
	"errors"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AnswerKind classifies an eviction answer.
type AnswerKind string

// The kinds of answer Read tells apart, one per answer the API server
// gives an eviction.
const (
	// Accepted: the pod is being deleted (201, or 200 for a pod the
	// subresource deletes without checking budgets: pending or terminal).
	Accepted AnswerKind = "accepted"
	// BudgetRefused: 429 from the eviction subresource. A
	// PodDisruptionBudget allows no disruption now (status.disruptionsAllowed
	// is 0) or its status is older than its spec ("is still being processed
	// by the server"). Retrying later may succeed.
	BudgetRefused AnswerKind = "budget-refused"
	// Throttled: 429 without a DisruptionBudget cause, from API Priority and
	// Fairness or a proxy. Retrying later may succeed.
	Throttled AnswerKind = "throttled"
	// MultipleBudgets: 500, the pod is selected by more than one
	// PodDisruptionBudget, which the eviction subresource refuses until one
	// is removed. Retrying does not help.
	MultipleBudgets AnswerKind = "multiple-budgets"
	// NamespaceTerminating: 403 with cause NamespaceTerminating, the
	// namespace is being deleted and admits no new object, evictions
	// included. kubectl retries it until the namespace's deletion reaches
	// the pod.
	NamespaceTerminating AnswerKind = "namespace-terminating"
	// NotFound: 404, the pod is gone already.
	NotFound AnswerKind = "not-found"
	// Lost: the request failed on the way (see Transient: a transport
	// error, a 5xx); whether the pod is being evicted is unknown until it is
	// read again.
	Lost AnswerKind = "lost"
	// AdmissionRefused: an admission webhook or a ValidatingAdmissionPolicy
	// denied the eviction, with whatever status code it chose (see
	// admissionDenial). Retrying does not help until the policy changes.
	AdmissionRefused AnswerKind = "admission-refused"
	// Forbidden: 403 from authorization (RBAC): this identity may not
	// evict the pod. Retrying does not help until its permissions change.
	Forbidden AnswerKind = "forbidden"
	// Failed: any other error (a malformed request, an unexpected status).
	Failed AnswerKind = "failed"
)

// The messages the eviction subresource puts in its Status
// (pkg/registry/core/pod/storage/eviction.go).
const (
	// budgetRefusedMessage is the Status message of its 429.
	budgetRefusedMessage = "Cannot evict pod as it would violate the pod's disruption budget."
)

// Answer is what one eviction request got.
type Answer struct {
	Kind AnswerKind
	// Cause says why, for a person: for BudgetRefused the messages of the
	// Status' DisruptionBudget causes joined with "; " ("The disruption
	// budget web needs 2 healthy pods and has 2 currently"), which kubectl
	// does not print; when the server sent such a cause without a message,
	// or none at all, the Status message. For the others, the cause of
	// type NamespaceTerminating or the error's message. Empty when Accepted.
	// It is text from the cluster: escape it before printing.
	Cause string
	// RetryAfter is the wait the server asked for (the Status'
	// details.retryAfterSeconds, which client-go also fills from a
	// Retry-After header); 0 when it asked for none.
	RetryAfter time.Duration
}

// Retryable reports whether the same eviction may succeed later: a budget
// refusal, throttling, or a terminating namespace (the rules
// k8s.io/kubectl/pkg/drain retries on).
func (a Answer) Retryable() bool {
	return a.Kind == BudgetRefused || a.Kind == Throttled || a.Kind == NamespaceTerminating
}

// Read classifies err, the error an Evict call returned (nil when it was
// accepted). It never fails: an error that is not an API Status is Failed
// with its message as the cause.
func Read(err error) Answer {
	if err == nil {
		return Answer{Kind: Accepted}
	}
	var api apierrors.APIStatus
	if !errors.As(err, &api) {
		if Transient(err) {
			return Answer{Kind: Lost, Cause: err.Error()}
		}
		return Answer{Kind: Failed, Cause: err.Error()}
	}
	st := api.Status()
	a := Answer{Kind: Failed, Cause: st.Message}
	if a.Cause == "" {
		a.Cause = err.Error()
	}
	if s, ok := apierrors.SuggestsClientDelay(err); ok {
		a.RetryAfter = time.Duration(s) * time.Second
	}
	switch {
	case admissionDenial(st.Message):
		a.Kind = AdmissionRefused
	case st.Code == http.StatusTooManyRequests || st.Reason == metav1.StatusReasonTooManyRequests:
		a.Kind = Throttled
		if budget, ok := budgetCauses(st); ok {
			a.Kind = BudgetRefused
			if budget != "" {
				a.Cause = budget
			}
		}
	case st.Code == http.StatusInternalServerError && strings.Contains(st.Message, "more than one PodDisruptionBudget"):
		a.Kind = MultipleBudgets
	case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		a.Kind = NamespaceTerminating
		if c, _ := apierrors.StatusCause(err, corev1.NamespaceTerminatingCause); c.Message != "" {
			a.Cause = c.Message
		}
	case apierrors.IsForbidden(err):
		a.Kind = Forbidden
	case apierrors.IsNotFound(err):
		a.Kind = NotFound
	case st.Code >= http.StatusInternalServerError || apierrors.IsTimeout(err):
		a.Kind = Lost
	}
	return a
}

// admissionDenial reports whether msg, a Status message, is an admission
// mechanism denying the request rather than RBAC or the eviction
// subresource. Their status codes say nothing: a webhook's denial has
// the code the webhook set (400 or more; 403 from controller-runtime's
// Denied), a policy's 422 (reason Invalid) unless its validation names
// Forbidden (403, as RBAC's), Unauthorized (401) or RequestEntityTooLarge
// (413). Their messages are fixed (k8s.io/apiserver, pkg/admission/plugin):
//   - webhook/errors.ToStatusErr: `admission webhook "NAME" denied the
//     request: MESSAGE` (or `... denied the request without explanation`);
//   - policy/validating/dispatcher.go, through admission.NewForbidden:
//     `pods "POD" is forbidden: ValidatingAdmissionPolicy 'NAME' with
//     binding 'BINDING' denied request: MESSAGE` (or without the binding).
//
// RBAC's own 403 reads `pods "POD" is forbidden: User "..." cannot create
// resource "pods/eviction" ...`: the text right after "is forbidden: "
// tells the two apart, never a user name further on.
func admissionDenial(msg string) bool {
	if strings.HasPrefix(msg, `admission webhook "`) && strings.Contains(msg, `" denied the request`) {
		return true
	}
	const forbidden = " is forbidden: "
	i := strings.Index(msg, forbidden)
	return i >= 0 && strings.HasPrefix(msg[i+len(forbidden):], "ValidatingAdmissionPolicy '")
}

// budgetCauses returns the messages of st's DisruptionBudget causes joined
// with "; ", and whether st is a budget refusal at all: it has such a
// cause (with or without a message) or the subresource's own message.
func budgetCauses(st metav1.Status) (string, bool) {
	found := st.Message == budgetRefusedMessage
	var msgs []string
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if c.Type != policyv1.DisruptionBudgetCause {
				continue
			}
			found = true
			if c.Message != "" {
				msgs = append(msgs, c.Message)
			}
		}
	}
	return strings.Join(msgs, "; "), found
}

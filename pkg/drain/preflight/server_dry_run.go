package preflight

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// ServerAnswer is what the API server answered one eviction (a delete with
// --disable-eviction) sent with dryRun=All: it runs authorization,
// admission and the budget check, and changes nothing.
type ServerAnswer struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Answer is how the API server answered: accepted, budget-refused,
	// forbidden, ...
	Answer eviction.AnswerKind `json:"answer"`
	// Code is the HTTP status code of a refusal (429, 403, 500), 0 when accepted.
	Code int32 `json:"code,omitempty"`
	// Cause is the server's reason for a refusal, text from the cluster.
	Cause string `json:"cause,omitempty"`
}

// ServerDryRun sends each eviction r's drain would send with dryRun=All,
// as `kubectl drain --dry-run=server` does, records each answer in
// r.ServerDryRun, makes each refusal a blocker and recomputes the verdict.
// A server-side dry run checks each pod against its budget as it stands:
// two pods of one budget may each pass although only one may go, which the
// preflight's own plan says.
func ServerDryRun(ctx context.Context, client kubernetes.Interface, r *Report, f Flags) {
	opts := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	if f.GracePeriodSeconds >= 0 {
		opts.GracePeriodSeconds = ptr.To(int64(f.GracePeriodSeconds))
	}
	for _, g := range r.Evict {
		for _, p := range g.Pods {
			err := eviction.Send(ctx, client, p.Namespace, p.Name, opts, f.DisableEviction)
			r.ServerDryRun = append(r.ServerDryRun, serverAnswer(p, err))
		}
	}
	for _, a := range r.ServerDryRun {
		if a.Answer != eviction.Accepted {
			r.Blockers = append(r.Blockers, Issue{Kind: BlockerServerRefused, Pod: a.Namespace + "/" + a.Name, Message: fmt.Sprintf(
				"the API server refused the dry-run eviction of %s/%s: %d %s: %s; %s", a.Namespace, a.Name, a.Code, a.Answer, a.Cause,
				waitingOn(a.Answer))})
		}
	}
	r.estimate(ptr.Deref(r.EstimatedSeconds, 0))
}

// serverAnswer reads the answer to one dry-run request for p.
func serverAnswer(p PodEntry, err error) ServerAnswer {
	a := eviction.Read(err)
	out := ServerAnswer{Namespace: p.Namespace, Name: p.Name, Answer: a.Kind, Cause: a.Cause}
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		out.Code = api.Status().Code
	}
	return out
}

// retriedUntil names, for each answer the drain retries (the ones
// kubectl's drain retries: eviction.Answer.Retryable), what it waits for.
var retriedUntil = map[eviction.AnswerKind]string{
	eviction.BudgetRefused:        "the budget to allow it",
	eviction.Throttled:            "the API server to take it",
	eviction.NamespaceTerminating: "the namespace's deletion to reach the pod",
}

// waitingOn says whether waiting can help an eviction that got an answer
// of kind: the others do not change by themselves.
func waitingOn(kind eviction.AnswerKind) string {
	if what, ok := retriedUntil[kind]; ok {
		return "the drain waits for " + what + ", retrying until --timeout"
	}
	return "waiting will not help: the same request gets the same answer"
}

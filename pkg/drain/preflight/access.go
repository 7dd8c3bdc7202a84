package preflight

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// AccessCheck is one request the drain will make and the API server's
// answer, for the caller, to a SelfSubjectAccessReview
// (authorization.k8s.io/v1) of it.
type AccessCheck struct {
	Verb        string `json:"verb"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	Allowed     bool   `json:"allowed"`
	// Reason is the authorizer's reason, often empty.
	Reason string `json:"reason,omitempty"`
	// Error is why the review itself failed: the answer is unknown.
	Error string `json:"error,omitempty"`
	// Optional is true for a request the drain can do without, at a cost
	// (watching PodDisruptionBudgets): denied, it is a warning, not a
	// blocker.
	Optional bool `json:"optional,omitempty"`
}

// what says the request for a person: "create pods/eviction in namespace
// shop", "patch nodes/worker-1".
func (a AccessCheck) what() string {
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Name != "" {
		res += "/" + a.Name
	}
	switch {
	case a.Namespace != "":
		return a.Verb + " " + res + " in namespace " + a.Namespace
	case a.Resource == "pods":
		return a.Verb + " " + res + " in every namespace"
	}
	return a.Verb + " " + res
}

// accessNeeded lists the requests a drain of node sends, so that the
// preflight asks exactly these (TestAccessNeededCoversDrain sends a drain
// through a fake clientset and fails on any request not listed here); the
// budgets' watch is optional (denied, the drain leans on the 429 answers).
// What the preflight reads itself (Gather) it is refused before anything
// changes. See docs/drain.md (Preflight, the forbidden blocker).
func accessNeeded(node string, namespaces []string, budgeted map[string]bool, f Flags) []AccessCheck {
	out := []AccessCheck{{Verb: "get", Resource: "nodes", Name: node}, {Verb: "patch", Resource: "nodes", Name: node},
		{Verb: "watch", Resource: "pods"}}
	for _, ns := range namespaces {
		remove := AccessCheck{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: ns}
		if f.DisableEviction {
			remove = AccessCheck{Verb: "delete", Resource: "pods", Namespace: ns}
		}
		out = append(out, remove, AccessCheck{Verb: "get", Resource: "pods", Namespace: ns})
		if f.DeleteAfter > 0 && !f.DisableEviction {
			out = append(out, AccessCheck{Verb: "delete", Resource: "pods", Namespace: ns})
		}
		if !f.DisableEviction && budgeted[ns] {
			out = append(out, AccessCheck{Verb: "watch", Resource: "poddisruptionbudgets", Namespace: ns, Optional: true})
		}
	}
	return out
}

// reviewChecks asks the API server, one SelfSubjectAccessReview each,
// whether the caller may make the requests of checks (accessNeeded's,
// surgeAccessNeeded's). A review that fails is recorded with its Error,
// not returned: the answer is unknown. The answers are kept in answers and
// the same question is asked once (a failed review again): the nodes of a
// pool share their namespaces' questions. The patch of a named node is
// first asked of every node (no name): RBAC allowing that allows each
// name, and only a denial asks the named one.
func reviewChecks(ctx context.Context, client kubernetes.Interface, checks []AccessCheck, answers map[AccessCheck]AccessCheck) []AccessCheck {
	for i := range checks {
		c := &checks[i]
		if c.Name != "" {
			anyName := *c
			anyName.Name = ""
			if got := review(ctx, client, anyName, answers); got.Allowed {
				c.Allowed, c.Reason = true, got.Reason
				continue
			}
		}
		got := review(ctx, client, *c, answers)
		c.Allowed, c.Reason, c.Error = got.Allowed, got.Reason, got.Error
	}
	return checks
}

// review returns the answer to the question of c (its request, not its
// answer fields), asking the API server unless answers holds it already.
func review(ctx context.Context, client kubernetes.Interface, c AccessCheck, answers map[AccessCheck]AccessCheck) AccessCheck {
	if got, ok := answers[c]; ok {
		return got
	}
	asked := c
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: c.Verb, Group: apiGroup(c.Resource), Resource: c.Resource,
			Subresource: c.Subresource, Namespace: c.Namespace, Name: c.Name}}}
	got, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	switch {
	case err != nil:
		c.Error = err.Error()
	default:
		c.Allowed, c.Reason = got.Status.Allowed, got.Status.Reason
		if got.Status.EvaluationError != "" && !c.Allowed {
			c.Reason = got.Status.EvaluationError
		}
	}
	if err == nil {
		answers[asked] = c // a failed review is asked again
	}
	return c
}

// accessIssues turns the access checks that matter to r (the node, and
// the namespaces of the pods it evicts or waits for) into blockers that
// stop the drain before it changes anything, and unknown answers into
// warnings.
func accessIssues(r *Report, checks []AccessCheck) {
	involved := map[string]bool{}
	for _, g := range r.Evict {
		involved[g.Namespace] = true
	}
	for _, t := range r.Terminating {
		involved[t.Namespace] = true
	}
	// Budgets are watched only where one covers a pod to evict (the
	// drain's budgetIndex): the namespaces of r.Budgets.
	watched := map[string]bool{}
	for _, b := range r.Budgets {
		watched[b.Namespace] = true
	}
	rolled := surgeRolled(r)
	dropUnrolled(r, rolled)
	for _, c := range checks {
		surge := surgeCheck(c)
		if c.Namespace != "" && !involved[c.Namespace] || c.Optional && !watched[c.Namespace] ||
			surge && !rolled[c.Namespace+"/"+c.Resource+"/"+c.Name] {
			continue
		}
		switch {
		case c.Error != "":
			r.Warnings = append(r.Warnings, Issue{Kind: WarningAccessUnknown, Message: fmt.Sprintf(
				"could not check whether you may %s: %s", c.what(), c.Error)})
		case !c.Allowed && c.Optional:
			r.Warnings = append(r.Warnings, Issue{Kind: WarningBudgetWatchForbidden, Message: fmt.Sprintf(
				"you may not %s: the drain sees the budgets' disruptionsAllowed only when it lists them again after a "+
					"backoff, late, so it leans on the Eviction API's 429 answers: the same result, more requests, "+
					"possibly a slower drain", c.what())})
		case !c.Allowed:
			why := ""
			if c.Reason != "" {
				why = " (" + c.Reason + ")"
			}
			if surge {
				r.Blockers = append(r.Blockers, surgeDenied(c, why))
				continue
			}
			r.Blockers = append(r.Blockers, Issue{Kind: BlockerForbidden, Refuses: true, Message: fmt.Sprintf(
				"you may not %s%s, as the API server answered a SelfSubjectAccessReview: the drain would fail "+
					"part way, and waiting will not help; ask for this permission, or drain as someone who has it", c.what(), why)})
		}
	}
}

// apiGroup is the API group of a resource accessNeeded or
// surgeAccessNeeded names: policy for poddisruptionbudgets, apps for
// deployments, argoproj.io for Argo's rollouts, the core group ("") for
// nodes and pods.
func apiGroup(resource string) string {
	switch resource {
	case "poddisruptionbudgets":
		return "policy"
	case "deployments":
		return "apps"
	case "rollouts":
		return "argoproj.io"
	}
	return ""
}

// readsRefused is the refusing BlockerForbidden of a preflight the API
// server refused its reads (err, a 403 Forbidden). The preflight reads the
// node's pods in every namespace (a field selector on spec.nodeName, as
// kubectl drain does), which a namespaced Role cannot grant, then the
// budgets and owners of the pods' namespaces.
func readsRefused(err error) Issue {
	return Issue{Kind: BlockerForbidden, Refuses: true, Message: fmt.Sprintf(
		"you may not read what the preflight reads: %v; it lists the node's pods in every namespace (a namespaced Role cannot grant that), "+
			"then the budgets and owners of their namespaces; nothing was changed: ask for these permissions (docs/rbac.md), or drain as someone who has them", err)}
}

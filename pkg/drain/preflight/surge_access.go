package preflight

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
)

// surgeVerbs are the requests --surge makes of a workload it rolls: get
// (read it), patch (the restart), list and watch (follow its rollout,
// with the field selector metadata.name, which RBAC authorizes as a
// request for that name).
var surgeVerbs = []string{"get", "patch", "list", "watch"}

// surgeAccessNeeded lists, with --surge, the requests it makes of each
// Deployment or Argo Rollout owning one of pods (those it does not roll
// are asked too: their plan is not made yet, and accessIssues skips them).
// Denied, the restart fails after the cordon and the drain evicts the
// workload's only Ready pods with none elsewhere.
func surgeAccessNeeded(pods []corev1.Pod, rsOwners map[string]OwnerRef, f Flags) []AccessCheck {
	if !f.Surge {
		return nil
	}
	var out []AccessCheck
	for i := range pods {
		o := ownerOf(&pods[i], rsOwners)
		res := surgeResource(o.Kind)
		if res == "" {
			continue
		}
		for _, verb := range surgeVerbs {
			c := AccessCheck{Verb: verb, Resource: res, Namespace: pods[i].Namespace, Name: o.Name}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// surgeResource is the resource of a workload kind --surge rolls, "" for
// the others.
func surgeResource(kind string) string {
	switch kind {
	case "Deployment":
		return "deployments"
	case argorollout.Kind:
		return "rollouts"
	}
	return ""
}

// surgeRolled returns the workloads --surge rolls in r, by namespace,
// resource and name, as the access checks name them.
func surgeRolled(r *Report) map[string]bool {
	out := map[string]bool{}
	for _, p := range r.Surge {
		if p.WithSurge && p.CanSurge {
			out[p.Namespace+"/"+surgeResource(p.Owner.Kind)+"/"+p.Owner.Name] = true
		}
	}
	return out
}

// surgeCheck reports whether c is a request of surgeAccessNeeded.
func surgeCheck(c AccessCheck) bool { return c.Resource == "deployments" || c.Resource == "rollouts" }

// dropUnrolled removes from r.Access the requests --surge would make of
// workloads it does not roll: the drain makes none of them.
func dropUnrolled(r *Report, rolled map[string]bool) {
	r.Access = slices.DeleteFunc(r.Access, func(c AccessCheck) bool {
		return surgeCheck(c) && !rolled[c.Namespace+"/"+c.Resource+"/"+c.Name]
	})
}

// surgeDenied is the blocker of a request --surge may not make of the
// workload of c; why is the authorizer's reason in parentheses, or "".
func surgeDenied(c AccessCheck, why string) Issue {
	kind := "Deployment"
	if c.Resource == "rollouts" {
		kind = argorollout.Kind
	}
	return Issue{Kind: BlockerForbidden, Refuses: true, Message: fmt.Sprintf(
		"you may not %s%s: --surge could not roll %s %s/%s, whose Ready pods are all on the node, and the drain would "+
			"then evict them with no Ready pod elsewhere; waiting will not help; ask for this permission, or drain without --surge",
		c.what(), why, kind, c.Namespace, c.Name)}
}

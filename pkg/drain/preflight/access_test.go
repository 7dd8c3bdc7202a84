package preflight

import (
	"strings"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
)

// Permissions the API server denied become refusing blockers for the node
// and the namespaces of evicted pods only; a review that failed is a
// warning that the answer is unknown; watching the budgets, which the
// drain can do without, denied is a warning that it drains on 429s alone.
func TestPreflightAccess(t *testing.T) {
	checks := accessNeeded("node-a", []string{"other", ns}, map[string]bool{"other": true, ns: true}, Flags{})
	for i := range checks {
		checks[i].Allowed = true
	}
	deny := func(verb, namespace string) []AccessCheck {
		out := append([]AccessCheck{}, checks...)
		for i := range out {
			if out[i].Verb == verb && out[i].Namespace == namespace {
				out[i].Allowed = false
			}
		}
		return out
	}
	for _, c := range []struct {
		name   string
		access []AccessCheck
		want   string // message of the one blocker, "" for none
		warn   string
	}{
		{"all allowed", checks, "", ""},
		{"no eviction in shop", deny("create", ns), "you may not create pods/eviction in namespace shop", ""},
		{"no cordon", deny("patch", ""), "you may not patch nodes/node-a", ""},
		{"no watch of pods", deny("watch", ""), "you may not watch pods in every namespace", ""},
		{"namespace without evicted pods", deny("create", "other"), "", ""},
		{"no watch on budgets in shop", deny("watch", ns), "", ""},
		{"review failed", append(append([]AccessCheck{}, checks...), AccessCheck{Verb: "create", Resource: "pods",
			Subresource: "eviction", Namespace: ns, Error: "the server is unreachable"}), "",
			"could not check whether you may create pods/eviction in namespace shop: the server is unreachable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := input(threeWebPods(true), []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 3, 2, 3)}, node("node-b", false))
			in.Access = c.access
			r := preflightOf(t, in)
			b := has(r.Blockers, BlockerForbidden)
			switch {
			case c.want == "" && b != nil:
				t.Errorf("blockers %+v, want none", r.Blockers)
			case c.want != "" && (b == nil || !strings.Contains(b.Message, c.want) || !b.Refuses || !r.Refused()):
				t.Errorf("blockers %+v, want a refusing %q", r.Blockers, c.want)
			}
			if w := has(r.Warnings, WarningAccessUnknown); (c.warn == "") != (w == nil) || w != nil && w.Message != c.warn {
				t.Errorf("warnings %+v, want %q", r.Warnings, c.warn)
			}
			w := has(r.Warnings, WarningBudgetWatchForbidden)
			if wantWatch := c.name == "no watch on budgets in shop"; wantWatch != (w != nil) ||
				w != nil && !strings.HasPrefix(w.Message, "you may not watch poddisruptionbudgets in namespace shop: ") {
				t.Errorf("warnings %+v, want a %s warning: %v", r.Warnings, WarningBudgetWatchForbidden, wantWatch)
			}
		})
	}
	// Without a budget over the pods to evict nothing is watched: no
	// warning however the watch is answered.
	noBudget := input(threeWebPods(true), nil, node("node-b", false))
	noBudget.Access = checks
	for i := range noBudget.Access {
		if noBudget.Access[i].Verb == "watch" {
			noBudget.Access[i].Allowed = false
		}
	}
	if w := has(preflightOf(t, noBudget).Warnings, WarningBudgetWatchForbidden); w != nil {
		t.Errorf("no budget covers the pods, yet %+v", w)
	}
	if d := accessNeeded("node-a", []string{ns}, map[string]bool{ns: true}, Flags{DisableEviction: true}); d[3].what() != "delete pods in namespace shop" {
		t.Errorf("--disable-eviction needs %q, want delete pods", d[3].what())
	}
	for _, c := range accessNeeded("node-a", []string{ns}, map[string]bool{ns: true}, Flags{DisableEviction: true}) {
		if c.Resource == "poddisruptionbudgets" {
			t.Errorf("--disable-eviction deletes pods, budgets play no part, yet it checks %q", c.what())
		}
	}
}

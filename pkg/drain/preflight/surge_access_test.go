package preflight

import (
	"strings"
	"testing"
)

// --surge patches and watches each workload it rolls: denied, the restart
// fails once the node is cordoned and the drain evicts the workload's
// only Ready pods, what --surge was given to avoid. The preflight refuses
// before changing anything, and only for a workload --surge rolls.
func TestSurgeAccessDeniedRefuses(t *testing.T) {
	in := rolloutInput(canaryRollout(map[string]any{}), "")
	needed := surgeAccessNeeded(in.Pods, in.RSOwners, in.Flags)
	var whats []string
	for _, c := range needed {
		whats = append(whats, c.what())
	}
	if got := strings.Join(whats, ", "); got != "get rollouts/web in namespace shop, patch rollouts/web in namespace shop, "+
		"list rollouts/web in namespace shop, watch rollouts/web in namespace shop" {
		t.Fatalf("--surge needs %s", got)
	}
	if apiGroup("rollouts") != "argoproj.io" || apiGroup("deployments") != "apps" {
		t.Fatalf("groups %q %q", apiGroup("rollouts"), apiGroup("deployments"))
	}
	if n := surgeAccessNeeded(in.Pods, in.RSOwners, Flags{}); len(n) != 0 {
		t.Fatalf("without --surge: %v", n)
	}
	for _, tc := range []struct {
		name string
		in   Input
		deny string // verb denied
		want string // the blocker's message start, "" for none
	}{
		{"patch denied", in, "patch", "you may not patch rollouts/web in namespace shop: --surge could not roll Rollout shop/web"},
		{"watch denied", in, "watch", "you may not watch rollouts/web in namespace shop: --surge could not roll Rollout shop/web"},
		{"all allowed", in, "", ""},
		{"not rolled: a pause step", rolloutInput(canaryRollout(map[string]any{"steps": []any{map[string]any{"pause": map[string]any{}}}}), ""), "patch", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Access = nil
			for _, c := range needed {
				c.Allowed = c.Verb != tc.deny
				tc.in.Access = append(tc.in.Access, c)
			}
			r := preflightOf(t, tc.in)
			if rolled := len(r.Surge) == 1 && r.Surge[0].CanSurge; rolled != (len(r.Access) == len(needed)) {
				t.Errorf("rolled %v, yet the report's access checks are %+v", rolled, r.Access)
			}
			b := has(r.Blockers, BlockerForbidden)
			switch {
			case tc.want == "" && b != nil:
				t.Errorf("blocker %q, want none", b.Message)
			case tc.want != "" && (b == nil || !strings.HasPrefix(b.Message, tc.want) || !r.Refused()):
				t.Errorf("blockers %+v, want a refusing %q", r.Blockers, tc.want)
			}
		})
	}
}

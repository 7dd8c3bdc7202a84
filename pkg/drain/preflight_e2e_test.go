package drain_test

import (
	"strings"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

// A budget held by an unready pod on another node: maxUnavailable 1 over
// app=web, two Ready pods of web on the drained node, one pod of another
// Deployment labelled app=web elsewhere that never turns Ready. The
// disruption controller computes disruptionsAllowed 0, and nothing the
// drain does frees one: the preflight blocks naming the unready pod and its
// node, the plan is blocked, no estimate is printed and --dry-run exits 2.
func TestDrainPreflightBudgetHeldByUnreadyPodElsewhere(t *testing.T) {
	t.Parallel()
	for _, policy := range []policyv1.UnhealthyPodEvictionPolicyType{policyv1.IfHealthyBudget, policyv1.AlwaysAllow} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			// Room elsewhere for web's replacements: only the budget blocks.
			a, _ := f.onOneOfTwo("web", "web", 2)
			b := f.env.Node(t)
			f.deploy("sick", "web", 1, map[string]string{hostLabel: b}, map[string]string{sim.Ready: "false"})
			f.pdb("web", "web", nil, intOrStr(1), ptr.To(policy), 3)
			sick := f.pods("role=sick", onNode(b))
			if len(sick) != 1 {
				t.Fatalf("%d sick pods on %s, want 1", len(sick), b)
			}

			dry := f.drain(a, "--dry-run")
			expect(t, dry, 2, "[pdb-held-by-unready-pods] PDB "+f.ns+"/web allows no disruption",
				f.ns+"/"+sick[0].Name+" on node "+b+" (Running, not Ready", string(policy),
				"Verdict: would block: pdb-held-by-unready-pods (PDB "+f.ns+"/web)")
			if strings.Contains(dry.Stdout, "all at once") || strings.Contains(dry.Stdout, "Estimated time") {
				t.Errorf("a blocked preflight says \"all at once\" or prints an estimate")
			}
			if f.unschedulable(a) {
				t.Errorf("--dry-run cordoned %s", a)
			}
		})
	}
}

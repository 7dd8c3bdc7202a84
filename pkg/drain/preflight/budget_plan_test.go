package preflight

import (
	"encoding/json"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
)

// budgetsJSON is the budgets of a node's preflight as -o json writes them.
type budgetsJSON struct {
	Node    string `json:"node"`
	Budgets []struct {
		Name    string `json:"name"`
		Plan    string `json:"plan"`
		Waves   int    `json:"waves"`
		PerWave int32  `json:"perWave"`
	} `json:"budgets"`
}

func decode(t *testing.T, v any, into any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A budget allowing 2 disruptions over 5 Ready pods on the node: its pods
// go in 3 waves of 2, the number in perWave beside the plan's words.
func TestPreflightPDBWavesCarryPerWave(t *testing.T) {
	pods := append(threeWebPods(true), rsPod("web-1-d", "web-1", "web", "node-a", true), rsPod("web-1-e", "web-1", "web", "node-a", true))
	r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 2, 5, 3, 5)}, node("node-b", false)))
	var doc budgetsJSON
	raw := decode(t, r, &doc)
	if len(doc.Budgets) != 1 {
		t.Fatalf("budgets = %s", raw)
	}
	if b := doc.Budgets[0]; b.Plan != "in waves of 2" || b.Waves != 3 || b.PerWave != 2 {
		t.Errorf("budget = %+v, want in waves of 2, waves 3, perWave 2", b)
	}
}

// In a pool's document each node's budgets carry perWave: web (allows 1)
// has two Ready pods on p1, one after another (1); api (allows 2) has its
// two on p3 at once (0: not in waves).
func TestPoolPreflightNodeBudgetsCarryPerWave(t *testing.T) {
	r := poolPreflightOf(t, threeNodePool(1))
	var doc struct {
		Nodes []budgetsJSON `json:"nodes"`
	}
	raw := decode(t, r, &doc)
	want := map[string]struct {
		plan    string
		perWave int32
	}{"p1": {"one after another", 1}, "p3": {"all at once", 0}}
	seen := 0
	for _, n := range doc.Nodes {
		w, ok := want[n.Node]
		if !ok {
			continue
		}
		seen++
		if len(n.Budgets) != 1 || n.Budgets[0].Plan != w.plan || n.Budgets[0].PerWave != w.perWave {
			t.Errorf("node %s budgets = %+v, want plan %q perWave %d", n.Node, n.Budgets, w.plan, w.perWave)
		}
	}
	if seen != len(want) {
		t.Errorf("nodes p1 and p3 not in the document: %s", raw)
	}
}

package preflight

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// threeNodePool: PDB web (allows 1) has two Ready pods on p1 and one on
// p2, each with a 10 s preStop sleep; PDB api (allows 2) has two on p3; a
// big node o1 outside holds the rest of both.
func threeNodePool(maxConcurrent int) PoolInput {
	sleep := func(p corev1.Pod) corev1.Pod {
		p.Spec.Containers = []corev1.Container{{Name: "app", Lifecycle: &corev1.Lifecycle{
			PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 10}}}}}
		return p
	}
	nodes := []corev1.Node{node("p1", false), node("p2", false), node("p3", false), sized(node("o1", false), "64", "64Gi", "110")}
	pods := []corev1.Pod{
		sleep(rsPod("web-1-a", "web-1", "web", "p1", true)), sleep(rsPod("web-1-b", "web-1", "web", "p1", true)),
		sleep(rsPod("web-1-c", "web-1", "web", "p2", true)), rsPod("web-1-d", "web-1", "web", "o1", true),
		rsPod("api-1-a", "api-1", "api", "p3", true), rsPod("api-1-b", "api-1", "api", "p3", true),
		rsPod("api-1-c", "api-1", "api", "o1", true),
	}
	pdbs := []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 4, 3, 4), pdb("api", "api", 2, 3, 1, 3)}
	in := poolInput([]string{"p1", "p2", "p3"}, nodes, pods, pdbs)
	in.MaxConcurrentNodes = maxConcurrent
	return in
}

func TestPoolBudgetsAcrossThePool(t *testing.T) {
	r := poolPreflightOf(t, threeNodePool(1))
	if len(r.Blockers) != 0 || r.Blocked() {
		t.Fatalf("blockers = %+v", r.Blockers)
	}
	want := []PoolBudget{
		{Namespace: ns, Name: "web", Nodes: []string{"p1", "p2"}, PodsInPool: 3, HealthyInPool: 3, DisruptionsAllowed: 1,
			PerWave: 1, Waves: 3, WaveSeconds: 2},
		{Namespace: ns, Name: "api", Nodes: []string{"p3"}, PodsInPool: 2, HealthyInPool: 2, DisruptionsAllowed: 2,
			PerWave: 2, Waves: 1, WaveSeconds: 2},
	}
	if !reflect.DeepEqual(r.Budgets, want) {
		t.Errorf("budgets =\n%+v\nwant\n%+v", r.Budgets, want)
	}
	// p1 and p2 compete for web's one disruption; p3 shares nothing with p1.
	if together := [][]string{{"p1", "p3"}, {"p2"}}; !reflect.DeepEqual(r.DrainTogether, together) {
		t.Errorf("drain together = %v, want %v", r.DrainTogether, together)
	}
}

// A budget that allows nothing now waits one wave, then goes at the pace
// its spec allows.
func TestPoolBudgetAllowingNoneNow(t *testing.T) {
	nodes := []corev1.Node{node("p1", false), node("p2", false), sized(node("o1", false), "8", "8Gi", "110")}
	pods := []corev1.Pod{rsPod("web-1-a", "web-1", "web", "p1", true), rsPod("web-1-b", "web-1", "web", "p2", true),
		rsPod("web-1-c", "web-1", "web", "o1", true), pending(rsPod("web-1-d", "web-1", "web", "o1", false))}
	r := poolPreflightOf(t, poolInput([]string{"p1", "p2"}, nodes, pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 0, 3, 3, 4)}))
	if len(r.Budgets) != 1 || r.Budgets[0].PerWave != 1 || r.Budgets[0].Waves != 3 {
		t.Fatalf("budgets = %+v, want 1 per wave in 1 + 2 waves", r.Budgets)
	}
	// p1: its pod waits for the budget (2 s ready + 1 s retry), then 30 s grace;
	// p2 after it: its pod goes at once, its budget place free since 6 s.
	if r.EstimatedSeconds == nil || *r.EstimatedSeconds != 63 {
		t.Errorf("estimate = %v, want 63; blockers %+v %+v", r.EstimatedSeconds, r.Blockers, r.Nodes[0].Blockers)
	}
}

// The estimate and the ideal follow the model of idealPoolSeconds.
func TestPoolEstimate(t *testing.T) {
	for _, c := range []struct {
		maxConcurrent int
		est           int64
		ideal         float64
	}{
		// One node after another. Estimate (waves of 2 s ready + 1 s retry,
		// 30 s grace): p1 evicts web-a at 0, web-b at 3, done at 33; p2
		// from 33, done at 63; p3 from 63, done at 93. Ideal (waves of 2 s,
		// gone after the 10 s preStop): p1 done at 12, p2 at 22, p3 at 22.
		{1, 93, 22},
		// Three at a time: p2's web-c waits for web's place until 6 (ideal
		// 4): done at 36 (ideal 14); p1 at 33 (12), p3 at 30 (0).
		{3, 36, 14},
	} {
		r := poolPreflightOf(t, threeNodePool(c.maxConcurrent))
		if r.EstimatedSeconds == nil || *r.EstimatedSeconds != c.est {
			t.Errorf("%d at a time: estimate = %v, want %d", c.maxConcurrent, r.EstimatedSeconds, c.est)
		}
		if got := idealPoolSeconds(r, c.maxConcurrent); got != c.ideal || r.IdealSeconds == nil || *r.IdealSeconds != c.ideal {
			t.Errorf("%d at a time: ideal = %v (report %v), want %v", c.maxConcurrent, got, r.IdealSeconds, c.ideal)
		}
		if want := "at a time, in about"; !strings.Contains(r.Verdict, want) {
			t.Errorf("verdict = %q", r.Verdict)
		}
	}
}

// The pods of the model carry their budget only when Ready, and their
// exit time never beyond their grace period.
func TestPoolPodsOfTheModel(t *testing.T) {
	in := threeNodePool(1)
	for i := range in.PerNode {
		in.PerNode[i].Flags.GracePeriodSeconds = 5
	}
	r := poolPreflightOf(t, in)
	if len(r.Pods) != 5 {
		t.Fatalf("pods = %+v, want 5", r.Pods)
	}
	first := r.Pods[0]
	if first.Node != "p1" || first.Name != "web-1-a" || first.PDB != ns+"/web" || first.GracePeriodSeconds != 5 || first.ExitSeconds != 5 {
		t.Errorf("first pod = %+v, want web-1-a on p1 paced by web, grace 5, exit 5 (its 10 s preStop cut by the grace)", first)
	}
}

// Measured times replace the model's: with every pod gone 1 s after its
// eviction and every budget allowing the next 5 s after one, three at a
// time: web evicts web-a at 0, web-b at 5, web-c (p2) at 10, gone at 11.
func TestIdealPoolSecondsWithMeasuredTimes(t *testing.T) {
	r := poolPreflightOf(t, threeNodePool(3))
	if got := idealPoolSecondsWith(r, 3, poolTimes{ExitSeconds: 1, WaveSeconds: 5}); got != 11 {
		t.Errorf("ideal = %v, want 11", got)
	}
	if got := idealPoolSecondsWith(r, 3, poolTimes{}); got != idealPoolSeconds(r, 3) {
		t.Errorf("zero poolTimes: %v, want the model's %v", got, idealPoolSeconds(r, 3))
	}
}

// The report's JSON carries the pool facts under documented names, amounts
// with their unit.
func TestPoolPreflightJSON(t *testing.T) {
	r := poolPreflightOf(t, threeNodePool(2))
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Capacity struct {
			NodesOutside int `json:"nodesOutside"`
			Resources    []struct {
				Name, Unit          string
				Needed, FreeOutside int64
			} `json:"resources"`
		} `json:"capacity"`
		Budgets []struct {
			PodsInPool int     `json:"podsInPool"`
			Waves      int     `json:"waves"`
			WaveSecs   float64 `json:"waveSeconds"`
		} `json:"budgets"`
		DrainTogether      [][]string `json:"drainTogether"`
		Pods               []struct{ Node, PDB string }
		MaxConcurrentNodes int      `json:"maxConcurrentNodes"`
		EstimatedSeconds   *int64   `json:"estimatedSeconds"`
		IdealSeconds       *float64 `json:"idealSeconds"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Capacity
	if c.NodesOutside != 1 || len(c.Resources) == 0 || c.Resources[0].Unit != "millicores" || c.Resources[0].Name != "cpu" {
		t.Errorf("capacity = %+v", c)
	}
	if len(doc.Budgets) != 2 || doc.Budgets[0].PodsInPool != 3 || doc.Budgets[0].Waves != 3 || doc.Budgets[0].WaveSecs != 2 ||
		len(doc.DrainTogether) != 2 || len(doc.Pods) != 5 || doc.Pods[0].PDB != ns+"/web" || doc.MaxConcurrentNodes != 2 ||
		doc.EstimatedSeconds == nil || doc.IdealSeconds == nil {
		t.Errorf("document = %s", b)
	}
}

// Three nodes each with one Ready pod of a budget allowing two at once:
// any two may drain together, not all three.
func TestDrainTogetherCountsTheWholeGroup(t *testing.T) {
	var nodes []*Report
	for _, n := range []string{"a", "b", "c"} {
		nodes = append(nodes, &Report{Node: n, Budgets: []BudgetEntry{{Namespace: ns, Name: "web", HealthyOnNode: 1}}})
	}
	got := drainTogether(nodes, []PoolBudget{{Namespace: ns, Name: "web", PerWave: 2}})
	if want := [][]string{{"a", "b"}, {"c"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("drain together = %v, want %v", got, want)
	}
}

// A node's blockers appear once in the pool's verdict, under its one
// "would block", not that node's whole verdict repeated.
func TestPoolVerdictNamesEachNodesBlockersOnce(t *testing.T) {
	in := threeNodePool(1)
	pdbs := in.PerNode[0].PDBs // one array, shared by every node's Input
	for i := range pdbs {
		if pdbs[i].Name == "api" {
			pdbs[i].Spec.MinAvailable = nil
			pdbs[i].Spec.MaxUnavailable = ptr.To(intstr.FromInt32(0))
		}
	}
	r := poolPreflightOf(t, in)
	want := "would block: node p3: pdb-allows-none (PDB shop/api); a drain cordons every node of the pool and retries until Ctrl-C (no --timeout)"
	if r.Verdict != want {
		t.Errorf("verdict = %q, want %q", r.Verdict, want)
	}
	for i := range in.PerNode {
		in.PerNode[i].Flags.Timeout = time.Minute
	}
	if r := poolPreflightOf(t, in); !strings.HasSuffix(r.Verdict, "; a drain cordons every node of the pool and retries for --timeout 1m0s on each node") {
		t.Errorf("with --timeout 1m: verdict = %q", r.Verdict)
	}
}

package harness

import (
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// A scaling step keeps the full fixture's proportions and namespaces, so
// that filling the next step only adds objects.
func TestStepSpecKeepsProportions(t *testing.T) {
	large, err := ScaleByName("large")
	if err != nil {
		t.Fatal(err)
	}
	full := large.Fixture
	if full.Pods != 20000 || full.Deployments != 4000 || full.Namespaces != 100 {
		t.Fatalf("large preset: %+v", full)
	}
	s := stepSpec(full, 1000)
	want := fixture.Spec{Name: full.Name, Namespaces: 100, Deployments: 200, Pods: 1000, Services: 200, PDBs: 60, HPAs: 20, Nodes: 10}
	if s != want {
		t.Errorf("stepSpec(large, 1000) = %+v, want %+v", s, want)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("step spec invalid: %v", err)
	}
	small, big := fixture.Build(s), fixture.Build(full)
	for i, d := range small.Deployments {
		if b := big.Deployments[i]; b.Namespace != d.Namespace || b.Name != d.Name || *b.Spec.Replicas != *d.Spec.Replicas {
			t.Fatalf("Deployment %d moves between steps: %s/%s x%d vs %s/%s x%d", i, d.Namespace, d.Name, *d.Spec.Replicas, b.Namespace, b.Name, *b.Spec.Replicas)
		}
	}
}

func TestScalingRowsPerPodSlope(t *testing.T) {
	rows := scalingRows([]liveSample{
		{pods: 1000, ours: time.Second, floor: time.Second, oursCPU: 500 * time.Millisecond},
		{pods: 20000, ours: 40 * time.Second, floor: 20 * time.Second, oursCPU: 10 * time.Second},
	})
	if len(rows) != 7 {
		t.Fatalf("%d rows, want 2 per size and 3 per-pod rows: %+v", len(rows), rows)
	}
	slope, floor, cpu := rows[4], rows[5], rows[6]
	if slope.Ratio != "2.00x" || slope.Met != "no" {
		t.Errorf("per-pod time doubled must miss the flat target: %+v", slope)
	}
	if floor.Ratio != "1.00x" || floor.Met != "-" {
		t.Errorf("the floor's per-pod time did not grow: %+v", floor)
	}
	if cpu.Ratio != "1.00x" || cpu.Ours != "0.500 ms" || cpu.Theirs != "0.500 ms" {
		t.Errorf("CPU time per pod is flat at 0.5 ms: %+v", cpu)
	}
}

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
		{pods: 1000, ours: time.Second, floor: time.Second},
		{pods: 20000, ours: 40 * time.Second, floor: 20 * time.Second},
	})
	last := rows[len(rows)-1]
	if len(rows) != 5 || last.Ratio != "2.00x" || last.Met != "no" {
		t.Errorf("per-pod time doubled must miss the flat target: %+v", rows)
	}
}

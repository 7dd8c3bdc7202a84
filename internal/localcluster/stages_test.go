package localcluster

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The stages file must hold the node stages too: kwokctl -c replaces all of
// its defaults, and without node-initialize no node ever turns Ready.
func TestStagesYAMLHasEveryStage(t *testing.T) {
	out, err := StagesYAML()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "__EXIT_SECONDS__") {
		t.Error("placeholder left in the stages")
	}
	var names []string
	for _, doc := range strings.Split(out, "\n---\n") {
		var s struct {
			Kind     string
			Metadata struct{ Name string }
		}
		if err := yaml.Unmarshal([]byte(doc), &s); err != nil {
			t.Fatalf("stage does not parse: %v\n%s", err, doc)
		}
		if s.Kind != "Stage" {
			t.Errorf("document of kind %q in the stages file", s.Kind)
		}
		names = append(names, s.Metadata.Name)
	}
	for _, want := range []string{"node-initialize", "node-heartbeat", "pod-ready", "sim-pod-running-unready", "pod-complete",
		"sim-pod-killing", "sim-pod-prestop-failed", "sim-pod-exit", "sim-pod-killed-at-deadline", "sim-pod-delete-terminal"} {
		if !slices.Contains(names, want) {
			t.Errorf("stage %s missing; have %v", want, names)
		}
	}
}

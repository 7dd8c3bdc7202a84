package fix

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// FieldMove moves a pod-spec field that a manifest wrote inside one of its
// containers (Kong/charts#639: terminationGracePeriodSeconds in a
// container) to the pod spec, value and all.
type FieldMove struct {
	// Field is the field's name; List ("containers", "initContainers")
	// and Container name the container that holds it.
	Field, List, Container string
}

// Reasons a field written at the wrong level is left to its author.
const (
	reasonMoveSet       = "the pod spec sets this field too: which of the two values is meant is for the author"
	reasonMoveTwice     = "more than one container sets this field: which value is meant is for the author"
	reasonMoveNotPodish = "only a pod-spec field written in a container is moved mechanically; a misspelling or a field of another level is for the author"
)

// inContainer matches an unknown field's path inside a container:
// the pod spec's path, the list, the index and the field.
var inContainer = regexp.MustCompile(`^(.*)\.(containers|initContainers)\[(\d+)\]\.([A-Za-z]+)$`)

// planMoves returns the moves that take every unknown field of w to where
// it belongs, or the reason none is made: the move is planned only when
// it is unambiguous (each field in one container only, and not set in the
// pod spec), and only when it accounts for all of w's unknown fields, since
// the audit judges nothing else of w until they are gone.
func planMoves(w *inspect.Workload) ([]FieldMove, string) {
	spec := map[string]json.RawMessage{}
	if b, err := json.Marshal(w.Template.Spec); err == nil {
		_ = json.Unmarshal(b, &spec)
	}
	var moves []FieldMove
	seen := map[string]bool{}
	for _, u := range w.UnknownFields {
		m := inContainer.FindStringSubmatch(u.Path)
		if m == nil || !podspec.PodSpecOnly[m[4]] || m[1] != strings.Join(podSpecPath(w.Object.Kind), ".") {
			return nil, reasonMoveNotPodish
		}
		if _, set := spec[m[4]]; set {
			return nil, reasonMoveSet
		}
		if seen[m[4]] {
			return nil, reasonMoveTwice
		}
		seen[m[4]] = true
		name, ok := containerName(w, m[2], m[3])
		if !ok {
			return nil, reasonMoveNotPodish
		}
		moves = append(moves, FieldMove{Field: m[4], List: m[2], Container: name})
	}
	return moves, ""
}

// containerName is the name of container index i of list in w's pod spec.
func containerName(w *inspect.Workload, list, index string) (string, bool) {
	i, err := strconv.Atoi(index)
	cs := w.Template.Spec.Containers
	if list == "initContainers" {
		cs = w.Template.Spec.InitContainers
	}
	if err != nil || i >= len(cs) || cs[i].Name == "" {
		return "", false
	}
	return cs[i].Name, true
}

// describe says what the move does.
func (m FieldMove) describe() string {
	return fmt.Sprintf("%s moved from container %s to the pod spec", m.Field, m.Container)
}

// planMovesOf plans the moves for w's unknown-field findings fs, or leaves
// them to the author with the reason.
func (p *Plan) planMovesOf(w *inspect.Workload, wp *WorkloadPlan, fs []inspect.Finding) {
	if len(fs) == 0 {
		return
	}
	moves, reason := planMoves(w)
	if reason == reasonMoveNotPodish {
		reason = reasonUnknownField
	}
	if reason != "" {
		for _, f := range fs {
			p.manual(f, reason)
		}
		return
	}
	wp.Moves = moves
	wp.Fixes = append(wp.Fixes, fs...)
}

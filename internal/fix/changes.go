package fix

import (
	"fmt"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// fieldChange sets (or, with a nil value and no copyOf, deletes) key in
// the mapping at path from an object's root; with copyOf it sets the value
// found at that path (a move's first half). Path steps are field names or
// "[name=x]" for the element of a list of named items (containers).
type fieldChange struct {
	path   []string
	key    string
	value  func() *yaml.RNode
	copyOf []string
}

// deletes reports whether the change deletes its key.
func (ch fieldChange) deletes() bool { return ch.value == nil && ch.copyOf == nil }

func join(a []string, b ...string) []string {
	return append(append([]string(nil), a...), b...)
}

// podSpecPath is where a kind keeps its pod spec.
func podSpecPath(kind string) []string {
	switch kind {
	case "Pod":
		return []string{"spec"}
	case "CronJob":
		return []string{"spec", "jobTemplate", "spec", "template", "spec"}
	}
	return []string{"spec", "template", "spec"}
}

func intNode(n int64) func() *yaml.RNode {
	return func() *yaml.RNode {
		rn := yaml.NewScalarRNode(strconv.FormatInt(n, 10))
		rn.YNode().Tag = yaml.NodeTagInt
		return rn
	}
}

// changes are the field edits of w's plan.
func (w *WorkloadPlan) changes() []fieldChange {
	spec := podSpecPath(w.Object.Kind)
	var out []fieldChange
	for _, c := range w.PreStops {
		list := "containers"
		if c.Init {
			list = "initContainers"
		}
		ctr := join(spec, list, "[name="+c.Container+"]")
		if c.Native && c.FromHow == prestop.HowNativeSleep {
			out = append(out, fieldChange{path: join(ctr, "lifecycle", "preStop", "sleep"), key: "seconds", value: intNode(c.Seconds)})
			continue
		}
		out = append(out, fieldChange{path: join(ctr, "lifecycle"), key: "preStop", value: hookNode(c)})
	}
	if w.GraceSeconds != nil {
		out = append(out, fieldChange{path: spec, key: "terminationGracePeriodSeconds", value: intNode(*w.GraceSeconds)})
	}
	for _, m := range w.Moves {
		ctr := join(spec, m.List, "[name="+m.Container+"]")
		out = append(out, fieldChange{path: spec, key: m.Field, copyOf: join(ctr, m.Field)}, fieldChange{path: ctr, key: m.Field})
	}
	return out
}

// hookNode is the preStop handler of c: sleep: {seconds: N} in block
// style, or exec: {command: ["sleep", "N"]} with the command in flow style
// as manifests usually write it.
func hookNode(c PreStopChange) func() *yaml.RNode {
	src := fmt.Sprintf("sleep:\n  seconds: %d\n", c.Seconds)
	if !c.Native {
		src = fmt.Sprintf("exec:\n  command: [\"sleep\", \"%d\"]\n", c.Seconds)
	}
	return func() *yaml.RNode { return yaml.MustParse(src) }
}

// changes are the field edits of d's plan.
func (d *PDBPlan) changes() []fieldChange {
	var out []fieldChange
	if d.MaxUnavailableOne {
		out = append(out,
			fieldChange{path: []string{"spec"}, key: "minAvailable"},
			fieldChange{path: []string{"spec"}, key: "maxUnavailable", value: intNode(1)})
	}
	if d.MinAvailable != nil {
		out = append(out,
			fieldChange{path: []string{"spec"}, key: "maxUnavailable"},
			fieldChange{path: []string{"spec"}, key: "minAvailable", value: intNode(int64(*d.MinAvailable))})
	}
	if d.AlwaysAllow {
		out = append(out, fieldChange{path: []string{"spec"}, key: "unhealthyPodEvictionPolicy", value: func() *yaml.RNode { return yaml.NewScalarRNode("AlwaysAllow") }})
	}
	return out
}

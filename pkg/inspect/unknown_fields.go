package inspect

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// UnknownField is a field of a manifest object that its API type does not
// have: kubectl applies with strict field validation (the default since
// 1.27), so the apply fails on it, and a lenient apply drops it.
type UnknownField struct {
	// Path is the field's path in the object, as the API server names it
	// (spec.template.spec.containers[0].lifecycle.preStopHook).
	Path string `json:"path"`
	// Closest is the known field of that object closest to the unknown
	// one's name ("preStop"), "" when none is close.
	Closest string `json:"closest,omitempty"`
	// Line is the 1-based line of the field in the file, 0 when unknown.
	Line int `json:"line,omitempty"`
}

// name returns the last element of the field's path.
func (u UnknownField) name() string {
	return u.Path[strings.LastIndex(u.Path, ".")+1:]
}

var unknownField = register(&Check{
	ID:       "unknown-field",
	Topic:    TopicAPIVersions,
	Severity: SeverityError,
	Summary:  "manifest field its API type does not have (lifecycle.preStopHook, terminationGracePeriodSecond, minAvailible): kubectl apply fails on it, a lenient apply drops it",
	run: func(s *scope, c *Check) []Finding {
		var out []Finding
		for _, o := range s.inv.objects() {
			for _, u := range o.unknown {
				f := c.objectFinding(o, unknownFieldMessage(o.ref.Kind, u), unknownFieldFix(u))
				f.Source = fieldSource(o.source, u.Line)
				out = append(out, f)
			}
		}
		return out
	},
	Explanation: Explanation{
		Why: "kubectl apply sends objects with strict field validation (fieldValidation=Strict, the default since 1.27): the API server refuses an object with a field its type does not have (\"unknown field\"), so the apply fails. A lenient apply (--validate=false, an older client, a controller) drops the field without a word, and the object runs as if it were absent: a misspelled preStop hook is no hook, a misspelled grace period is the default 30 s, a misspelled minAvailable is a budget with neither field. " +
			"The audit names the field and the closest field the type has (from the Go types of k8s.io/api) and judges nothing else of the object until it is fixed: neither as the text suggests (the field is not applied) nor as if the field were absent (which is not what its author meant); --fix moves a pod-spec field written in the one container that holds it to the pod spec, value and comment, when the pod spec sets none (run it again for the checks the object then gets); a misspelling, a field of another level or a choice between two values is left to the author.",
		Fix:    "Rename the field to the one the API type has (the finding names the closest), or remove it.",
		Source: "API server strict field validation (KEP-2885, server-side field validation, GA in 1.27); the field names of k8s.io/api's Go types",
	},
})

func unknownFieldMessage(kind string, u UnknownField) string {
	msg := fmt.Sprintf("%s is not a field of a %s (unknown field %q", u.Path, kind, u.name())
	if at, ok := belongsAt(u); ok {
		msg += fmt.Sprintf("; it is a field of %s: %s", at.owner, at.path)
	} else if u.Closest != "" {
		msg += fmt.Sprintf("; the closest known field is %q", u.Closest)
	}
	return msg + "): kubectl apply with strict field validation (the default) fails, a lenient apply drops it; the audit judges nothing else of this object until it is fixed"
}

func unknownFieldFix(u UnknownField) string {
	if at, ok := belongsAt(u); ok {
		return fmt.Sprintf("move %s to %s", u.Path, at.path)
	}
	if u.Closest != "" {
		return fmt.Sprintf("rename %s to %s", u.name(), u.Closest)
	}
	return "remove " + u.Path
}

// fieldSource is src pointing at line, the field's, when it is known.
func fieldSource(src *Source, line int) *Source {
	if src == nil || line == 0 {
		return src
	}
	return &Source{File: src.File, Line: line}
}

// withUnknownFields returns the objects of inv that have unknown fields:
// their other findings are dropped (unknownOnly).
func withUnknownFields(inv *Inventory) map[ObjectRef]bool {
	out := map[ObjectRef]bool{}
	for _, o := range inv.objects() {
		if len(o.unknown) > 0 {
			out[o.ref] = true
		}
	}
	return out
}

// place is where a field written at the wrong level belongs: the object
// that has it (for a person) and its path.
type place struct{ owner, path string }

// belongsAt says where u belongs when it is a known field of the pod spec
// or of a container written at the other level, or a lifecycle hook
// written beside lifecycle; ok is false otherwise (a misspelling: Closest
// speaks for it).
func belongsAt(u UnknownField) (place, bool) {
	name := u.name()
	parent := strings.TrimSuffix(u.Path, "."+name)
	last := strings.ToLower(parent[strings.LastIndex(parent, ".")+1:]) // "containers[0]", "initcontainers[1]"
	inContainer := strings.HasSuffix(last, "]") && strings.Contains(last, "containers[")
	inPodSpec := parent == "spec" || strings.HasSuffix(parent, "template.spec") // a Pod's, or any pod template's
	switch {
	case inContainer && podspec.PodSpecOnly[name]:
		return place{"the pod spec, not of a container", parent[:strings.LastIndex(parent, ".")] + "." + name}, true
	case inContainer && podspec.LifecycleHooks[name]:
		return place{"a container's lifecycle", parent + ".lifecycle." + name}, true
	case inPodSpec && podspec.ContainerOnly[name]:
		return place{"a container, not of the pod spec", parent + ".containers[*]." + name}, true
	}
	return place{}, false
}

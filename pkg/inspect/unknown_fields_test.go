package inspect

import (
	"strings"
	"testing"
)

// A known field at the wrong level is named with the place it belongs
// (Kong/charts#639: terminationGracePeriodSeconds in a container), and
// the fix moves it; a misspelling keeps its closest known field.
func TestUnknownFieldBelongsAt(t *testing.T) {
	for _, c := range []struct {
		path, closest, message, fix string
	}{
		{"spec.template.spec.containers[0].terminationGracePeriodSeconds", "",
			"it is a field of the pod spec, not of a container: spec.template.spec.terminationGracePeriodSeconds",
			"move spec.template.spec.containers[0].terminationGracePeriodSeconds to spec.template.spec.terminationGracePeriodSeconds"},
		{"spec.template.spec.lifecycle", "",
			"it is a field of a container, not of the pod spec: spec.template.spec.containers[*].lifecycle",
			"move spec.template.spec.lifecycle to spec.template.spec.containers[*].lifecycle"},
		{"spec.containers[1].preStop", "",
			"it is a field of a container's lifecycle: spec.containers[1].lifecycle.preStop",
			"move spec.containers[1].preStop to spec.containers[1].lifecycle.preStop"},
		{"spec.jobTemplate.spec.template.spec.initContainers[0].tolerations", "",
			"spec.jobTemplate.spec.template.spec.tolerations", "move"},
		{"spec.template.spec.terminationGracePeriodSecond", "terminationGracePeriodSeconds",
			`the closest known field is "terminationGracePeriodSeconds"`, "rename terminationGracePeriodSecond to terminationGracePeriodSeconds"},
	} {
		u := UnknownField{Path: c.path, Closest: c.closest}
		if m := unknownFieldMessage("Deployment", u); !strings.Contains(m, c.message) {
			t.Errorf("%s: message %q, want %q", c.path, m, c.message)
		}
		if f := unknownFieldFix(u); !strings.HasPrefix(f, c.fix) {
			t.Errorf("%s: fix %q, want %q", c.path, f, c.fix)
		}
	}
}

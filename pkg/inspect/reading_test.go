package inspect

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestReportListsAreNeverNull(t *testing.T) {
	b, err := json.Marshal(Audit(&Inventory{}, DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"notes":[]`, `"notAudited":[]`, `"generic":0`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %s: %s", want, b)
		}
	}
}

func TestGenericWorkloadsAreCountedAndNoted(t *testing.T) {
	inv := &Inventory{}
	zero := int64(0)
	tpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &zero,
		Containers: []corev1.Container{{Name: "app", Image: "x"}}}}
	addGeneric(t, inv, customObject("apps.kruise.io/v1alpha1", "CloneSet", "", "web", &tpl, nil))
	inv.AddNotAudited(NotAuditedCustomResource, "custom resources without a pod template")
	inv.AddNotAudited(NotAuditedCustomResource, "custom resources without a pod template")
	r := Audit(inv, DefaultOptions())
	if r.Summary.Generic != 1 || len(r.Summary.NotAudited) != 1 || r.Summary.NotAudited[0].Count != 2 {
		t.Errorf("summary %+v", r.Summary)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "CloneSet default/web (apps.kruise.io/v1alpha1)") ||
		!strings.Contains(r.Notes[0], "no spec.replicas") {
		t.Errorf("notes %q", r.Notes)
	}
	found := false
	for _, f := range r.Findings {
		found = found || (f.Check == "grace-period-zero" && f.Object.Kind == "CloneSet" &&
			f.Fix == `merge into spec.template.spec of its manifest: {"terminationGracePeriodSeconds":30}`)
	}
	if !found {
		t.Errorf("grace-period-zero not reported on the CloneSet: %+v", r.Findings)
	}
}

// A JSON consumer tells why by a stable kebab-case value, and reads the
// words beside it: a manifest audit skips the live-only checks, and
// counts objects it did not audit per reason and message.
func TestReasonsAreKebabCaseWithMessages(t *testing.T) {
	inv := &Inventory{}
	inv.AddNotAudited(NotAuditedUnparseable, "documents that do not parse")
	inv.AddNotAudited(NotAuditedCustomResource, "custom resources without a pod template")
	inv.AddNotAudited(NotAuditedUnparseable, "documents that do not parse")
	r := Audit(inv, DefaultOptions())
	want := []NotAudited{
		{Reason: "custom-resource-without-pod-template", Message: "custom resources without a pod template", Count: 1},
		{Reason: "unparseable-document", Message: "documents that do not parse", Count: 2},
	}
	if !reflect.DeepEqual(r.Summary.NotAudited, want) {
		t.Errorf("not audited %+v, want %+v", r.Summary.NotAudited, want)
	}
	for _, s := range r.Skipped {
		if s.Check == "pdb-split" && (s.Reason != "needs-live-cluster" || !strings.Contains(s.Message, "live cluster")) {
			t.Errorf("pdb-split skipped as %q: %q", s.Reason, s.Message)
		}
	}
	if len(r.Skipped) == 0 {
		t.Errorf("a manifest audit skipped no live-only check")
	}
}

// customObject is an object of a kind the audit does not read, with pod
// template tpl and spec.replicas when not nil.
func customObject(apiVersion, kind, namespace, name string, tpl *corev1.PodTemplateSpec, replicas *int32) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	if tpl != nil {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tpl)
		if err != nil {
			panic(err)
		}
		_ = unstructured.SetNestedMap(u.Object, m, "spec", "template")
	}
	if replicas != nil {
		_ = unstructured.SetNestedField(u.Object, int64(*replicas), "spec", "replicas")
	}
	return u
}

// addGeneric files u as a generic workload, failing t unless it is filed.
func addGeneric(t *testing.T, inv *Inventory, u *unstructured.Unstructured) {
	t.Helper()
	if added, err := inv.AddGenericWorkload(u, nil); !added || err != nil {
		t.Fatalf("AddGenericWorkload = %v, %v", added, err)
	}
}

package inspect

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestPDBCustomResourceWithoutScale: kubevirt/kubevirt#18063, a budget
// with maxUnavailable over pods of a custom resource without /scale.
func TestPDBCustomResourceWithoutScale(t *testing.T) {
	crd := func(scale bool) *unstructured.Unstructured {
		v := map[string]any{"name": "v1", "served": true, "storage": true}
		if scale {
			v["subresources"] = map[string]any{"scale": map[string]any{"specReplicasPath": ".spec.replicas"}}
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "vms.example.io"},
			"spec":     map[string]any{"group": "example.io", "names": map[string]any{"kind": "VM"}, "versions": []any{v}},
		}}
	}
	for _, tc := range []struct {
		name           string
		scale, withCRD bool
		min, max       string
		want           int
	}{
		{"maxUnavailable, no /scale", false, true, "", "1", 1},
		{"percentage minAvailable, no /scale", false, true, "50%", "", 1},
		{"integer minAvailable needs no count", false, true, "1", "", 0},
		{"with /scale", true, true, "", "1", 0},
		{"CRD not among the inputs", false, false, "", "1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := &Inventory{Version: Version{1, 37}}
			if tc.withCRD && !inv.AddCustomResourceDefinition(crd(tc.scale)) {
				t.Fatal("CRD not read")
			}
			d := deploy("vm")
			inv.AddGenericWorkload("example.io/v1", "VM", "shop", "vm", nil, d.Spec.Template, nil, nil)
			inv.Add(pdbWith("vm", matchApp("vm"), tc.min, tc.max), nil)
			var got []Finding
			for _, f := range Audit(inv, DefaultOptions()).Findings {
				if f.Check == "pdb-custom-resource-without-scale" {
					got = append(got, f)
				}
			}
			if len(got) != tc.want {
				t.Fatalf("findings %+v, want %d", got, tc.want)
			}
			if tc.want > 0 && (!strings.Contains(got[0].Message, "VM/vm, whose CustomResourceDefinition (example.io/VM) has no /scale subresource") || !strings.Contains(got[0].Fix, `"minAvailable":N`)) {
				t.Errorf("finding %+v", got[0])
			}
		})
	}
}

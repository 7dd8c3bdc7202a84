package inspect

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
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
			if tc.withCRD && !inv.addCustomResourceDefinition(crd(tc.scale)) {
				t.Fatal("CRD not read")
			}
			d := deploy("vm")
			addGeneric(t, inv, customObject("example.io/v1", "VM", "shop", "vm", &d.Spec.Template, nil))
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

func scaleFindings(inv *Inventory) []Finding {
	var got []Finding
	for _, f := range Audit(inv, DefaultOptions()).Findings {
		if f.Check == "pdb-custom-resource-without-scale" {
			got = append(got, f)
		}
	}
	return got
}

// TestPDBWithoutScaleKeepsTolerance: the fix's integer minAvailable is
// the desiredHealthy the disruption controller would compute over the
// pods' count, rounding percentages up as it does.
func TestPDBWithoutScaleKeepsTolerance(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "vms.example.io"},
		"spec":     map[string]any{"group": "example.io", "names": map[string]any{"kind": "VM"}, "versions": []any{map[string]any{"name": "v1"}}},
	}}
	for _, tc := range []struct {
		min, max string
		replicas int32
		want     string
	}{
		{"", "1", 4, `"minAvailable":3}}' (the same tolerance over 4 pods (VM/vm spec.replicas 4))`},
		{"", "50%", 3, `"minAvailable":1}}'`}, // 50% of 3 rounds up to 2 unavailable
		{"50%", "", 3, `"minAvailable":2}}'`}, // 50% of 3 rounds up to 2 available
		{"", "5", 3, `"minAvailable":0}}'`},   // never below 0
	} {
		inv := &Inventory{Version: Version{1, 37}}
		inv.addCustomResourceDefinition(crd)
		d := deploy("vm")
		addGeneric(t, inv, customObject("example.io/v1", "VM", "shop", "vm", &d.Spec.Template, &tc.replicas))
		inv.Add(pdbWith("vm", matchApp("vm"), tc.min, tc.max), nil)
		got := scaleFindings(inv)
		if len(got) != 1 || !strings.Contains(got[0].Fix, tc.want) {
			t.Errorf("min %q max %q over %d: findings %+v, want a fix with %s", tc.min, tc.max, tc.replicas, got, tc.want)
			continue
		}
		b, ok := inv.IntegerMinAvailable(&inv.PDBs[0])
		if !ok || b.Pods != tc.replicas {
			t.Errorf("IntegerMinAvailable = %+v, %v", b, ok)
		}
	}
}

// TestPDBWithoutScaleLive: live, the pods a budget selects name their
// controller; the kinds the disruption controller does not count itself
// are asked of discovery (ScaleQuestions), and a kind without /scale is
// reported with the count of the selected pods.
func TestPDBWithoutScaleLive(t *testing.T) {
	owner := func(apiVersion, kind, name string) *metav1.OwnerReference {
		return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: ptr.To(true)}
	}
	live := func() *Inventory {
		inv := &Inventory{Live: true, Version: Version{1, 37}}
		for i := range 3 {
			inv.AddPodLabels("shop", app("vm"), owner("example.io/v1", "VM", fmt.Sprint("vm-", i)))
		}
		inv.AddPodLabels("shop", app("web"), owner("apps/v1", "ReplicaSet", "web-5d8f"))
		inv.AddPodLabels("shop", app("agent"), owner("apps/v1", "DaemonSet", "agent"))
		inv.AddPodLabels("other", app("vm"), owner("other.io/v1", "VM", "vm"))
		inv.Add(pdbWith("vm", matchApp("vm"), "", "1"), nil)
		inv.Add(pdbWith("web", matchApp("web"), "", "1"), nil)
		inv.Add(pdbWith("agent", matchApp("agent"), "1", ""), nil)
		return inv
	}
	inv := live()
	q := inv.ScaleQuestions()
	if len(q) != 1 || q[0] != (schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "VM"}) {
		t.Fatalf("ScaleQuestions = %v, want only example.io/v1 VM (a ReplicaSet is counted without /scale, an integer minAvailable needs no count, another namespace's pods are not selected)", q)
	}
	if got := scaleFindings(inv); len(got) != 0 {
		t.Errorf("unanswered: findings %+v, want none", got)
	}
	inv.SetScale("example.io", "VM", false)
	if q := inv.ScaleQuestions(); len(q) != 0 {
		t.Errorf("answered, ScaleQuestions = %v", q)
	}
	got := scaleFindings(inv)
	if len(got) != 1 || got[0].Object.Name != "vm" ||
		!strings.Contains(got[0].Message, "maxUnavailable 1 over pods of VM/vm-0 (example.io/v1), whose API serves no /scale subresource for that kind (API discovery)") ||
		!strings.Contains(got[0].Fix, `"minAvailable":2}}' (the same tolerance over the 3 pods it selects now)`) {
		t.Errorf("findings %+v", got)
	}
	inv = live()
	inv.SetScale("example.io", "VM", true)
	if got := scaleFindings(inv); len(got) != 0 {
		t.Errorf("with /scale: findings %+v, want none", got)
	}
	inv = live()
	inv.Unavailable = map[Input]string{InputPods: "forbidden"}
	inv.SetScale("example.io", "VM", false)
	if _, ok := inv.IntegerMinAvailable(&inv.PDBs[0]); ok {
		t.Error("IntegerMinAvailable known without the pods")
	}
}

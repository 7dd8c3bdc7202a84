package fix

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// scaleless is a custom resource without /scale, its pods under a budget
// with maxUnavailable: every eviction of them is refused.
const scaleless = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: vms.example.io}
spec:
  group: example.io
  names: {kind: VM, plural: vms}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
---
apiVersion: example.io/v1
kind: VM
metadata: {name: vm, namespace: shop}
spec:
  replicas: 4
  template:
    metadata: {labels: {app: vm}}
    spec: {terminationGracePeriodSeconds: 30, containers: [{name: vm, image: example.com/vm:1}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: vm, namespace: shop}
spec:
  # one VM at a time
  maxUnavailable: 1
  selector: {matchLabels: {app: vm}}
`

func TestFixPDBWithoutScale(t *testing.T) {
	only := Options{Only: []string{checkPDBWithoutScale}}
	fx := fixText(t, scaleless, inspect.Version{Major: 1, Minor: 37}, inspect.DefaultOptions(), only)
	after := string(fx.edit.After)
	if !strings.Contains(after, "  # one VM at a time\n  selector: {matchLabels: {app: vm}}\n  minAvailable: 3\n") || strings.Contains(after, "maxUnavailable") {
		t.Errorf("fixed budget:\n%s", after)
	}
	if len(fx.edit.Done) != 1 || !strings.Contains(fx.edit.Done[0].Text, "maxUnavailable 1 -> minAvailable: 3 (needs no count of expected pods; the same tolerance over 4 pods (VM/vm spec.replicas 4))") {
		t.Errorf("done %+v", fx.edit.Done)
	}
	assertFixedGone(t, fx)
	if cmd := fx.plan.Commands(); !strings.Contains(strings.Join(slices.Collect(maps.Values(cmd)), "\n"), `kubectl patch pdb vm -n shop --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":3}}'`) {
		t.Errorf("commands %v", cmd)
	}

	// Without spec.replicas the count is unknown: no fix, and why.
	fx = fixText(t, strings.Replace(scaleless, "  replicas: 4\n", "", 1), inspect.Version{Major: 1, Minor: 37}, inspect.DefaultOptions(), only)
	if fx.edit.Changed() || len(fx.plan.Manual) != 1 || fx.plan.Manual[0].Reason != "the number of pods is unknown: VM/vm sets no spec.replicas" {
		t.Errorf("changed %v, manual %+v", fx.edit.Changed(), fx.plan.Manual)
	}
}

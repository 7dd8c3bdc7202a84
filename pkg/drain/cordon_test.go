package drain

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The owners of spec.unschedulable come from the node's managedFields;
// other spec fields do not count.
func TestUnschedulableManagers(t *testing.T) {
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, FieldsV1: metav1.NewFieldsV1(fields)}
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{
		entry("kubelet", `{"f:spec":{"f:podCIDR":{}}}`),
		entry("kubectl-graceful-drain-abc", `{"f:spec":{"f:unschedulable":{}}}`),
		entry("kube-controller-manager", `{"f:metadata":{"f:labels":{}}}`),
		{Manager: "no-fields"},
	}}}
	if got := unschedulableManagers(n); !reflect.DeepEqual(got, []string{"kubectl-graceful-drain-abc"}) {
		t.Errorf("managers = %v", got)
	}
}

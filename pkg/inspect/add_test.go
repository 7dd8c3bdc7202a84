package inspect

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func controlledBy(apiVersion, kind string) metav1.ObjectMeta {
	yes := true
	return metav1.ObjectMeta{Namespace: "shop", Name: "web-abc", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: apiVersion, Kind: kind, Name: "web", UID: "u1", Controller: &yes}}}
}

// An object controlled by a workload the audit reads is reported through
// it; one controlled by anything else (an Argo Rollout's ReplicaSet) is
// counted as not audited, naming the controller, never skipped silently.
func TestControlledObjectsAreReportedOrCounted(t *testing.T) {
	cases := []struct {
		name       string
		obj        runtime.Object
		workloads  int
		notAudited string
	}{
		{"ReplicaSet of a Deployment", &appsv1.ReplicaSet{ObjectMeta: controlledBy("apps/v1", "Deployment")}, 0, ""},
		{"ReplicaSet of an Argo Rollout", &appsv1.ReplicaSet{ObjectMeta: controlledBy("argoproj.io/v1alpha1", "Rollout")}, 0,
			"ReplicaSet controlled by Rollout (argoproj.io/v1alpha1), a controller the audit does not read: audit it by name (kubectl graceful audit rollout/NAME)"},
		{"ReplicaSet without a controller", &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}, 1, ""},
		{"Pod of a ReplicaSet", &corev1.Pod{ObjectMeta: controlledBy("apps/v1", "ReplicaSet")}, 0, ""},
		{"mirror Pod of a Node", &corev1.Pod{ObjectMeta: controlledBy("v1", "Node")}, 0, ""},
		{"Pod of an OpenKruise CloneSet", &corev1.Pod{ObjectMeta: controlledBy("apps.kruise.io/v1alpha1", "CloneSet")}, 0, "Pod controlled by CloneSet (apps.kruise.io/v1alpha1)"},
		{"Job of a CronJob", &batchv1.Job{ObjectMeta: controlledBy("batch/v1", "CronJob")}, 0, ""},
		{"Job of another controller", &batchv1.Job{ObjectMeta: controlledBy("example.com/v1", "Pipeline")}, 0, "Job controlled by Pipeline (example.com/v1)"},
		{"Deployment named like a core kind in another group", &appsv1.ReplicaSet{ObjectMeta: controlledBy("example.com/v1", "Deployment")}, 0, "ReplicaSet controlled by Deployment (example.com/v1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv := &Inventory{}
			inv.Add(c.obj, nil)
			if len(inv.Workloads) != c.workloads {
				t.Errorf("%d workloads, want %d", len(inv.Workloads), c.workloads)
			}
			var reasons []string
			for r := range inv.NotAudited {
				reasons = append(reasons, r.Message)
			}
			switch {
			case c.notAudited == "" && len(reasons) > 0:
				t.Errorf("counted as not audited: %q", reasons)
			case c.notAudited != "" && (len(reasons) != 1 || !strings.HasPrefix(reasons[0], c.notAudited)):
				t.Errorf("not audited %q, want one reason starting %q", reasons, c.notAudited)
			}
		})
	}
}

// Merge carries every field but Live and Version: a field added to
// Inventory later must be merged too, or a file's objects would be lost.
func TestInventoryMergeCarriesEveryField(t *testing.T) {
	var full Inventory
	v := reflect.ValueOf(&full).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // unexported ones too
		switch f.Kind() {
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			m.SetMapIndex(reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem())
			f.Set(m)
		case reflect.Int:
			f.SetInt(1)
		case reflect.String:
			f.SetString("x")
		}
	}
	var got Inventory
	got.Merge(&full)
	g := reflect.ValueOf(got)
	for i := 0; i < g.NumField(); i++ {
		name := g.Type().Field(i).Name
		if name == "Live" || name == "Version" {
			continue
		}
		if g.Field(i).IsZero() || (g.Field(i).Kind() == reflect.Slice || g.Field(i).Kind() == reflect.Map) && g.Field(i).Len() == 0 {
			t.Errorf("Merge does not carry Inventory.%s", name)
		}
	}
}

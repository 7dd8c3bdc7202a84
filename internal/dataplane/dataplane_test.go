package dataplane

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

func endpoint(pod string, ready, serving, terminating bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: pod},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating}}
}

func sliceOf(service string, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{discoveryv1.LabelServiceName: service}}, Endpoints: eps}
}

// kube-proxy's rule: the ready endpoints, else the serving terminating
// ones; other Services' slices do not count.
func TestRoutableFollowsKubeProxy(t *testing.T) {
	d := &DataPlane{cfg: Config{Service: "web"}}
	got := d.routable([]any{
		sliceOf("web", endpoint("web-1", true, true, false), endpoint("web-0", false, true, true)),
		sliceOf("other", endpoint("db-0", true, true, false)),
	})
	if !reflect.DeepEqual(got, []string{"web-1"}) {
		t.Errorf("routed %v, want the ready web-1", got)
	}
	got = d.routable([]any{sliceOf("web", endpoint("web-0", false, true, true), endpoint("web-2", false, false, true))})
	if !reflect.DeepEqual(got, []string{"web-0"}) {
		t.Errorf("routed %v, want the serving terminating web-0 (no ready endpoint left)", got)
	}
}

func TestPreStopDelayAsTheStagesCountIt(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "app", Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "0.5"}}}}},
		{Name: "proxy"},
	}}}
	if d := preStopDelay(pod); d != time.Second {
		t.Errorf("exec sleep 0.5: %s, want 1s (whole seconds, rounded up)", d)
	}
	pod.Annotations = map[string]string{sim.PreStopFails: "true"}
	if d := preStopDelay(pod); d != 0 {
		t.Errorf("failing hook: %s, want 0", d)
	}
}

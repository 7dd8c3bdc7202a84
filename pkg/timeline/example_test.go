package timeline_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Follow a pod's termination from what the watches deliver, as Follow
// does from the API server: hand each notice of the pod's streams to a
// Recorder (listwatch.Stream stamps each with the time it arrived), then
// judge the Timeline. Here pod web-1 behind Service
// web has no preStop hook: the kubelet sends SIGTERM 5 ms after its
// endpoint left the EndpointSlice, far less than the 5 s the data plane is
// given to stop sending it traffic.
func ExampleRecorder() {
	t0 := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", UID: "uid-web-1", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	slice := func(ready, terminating bool) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-abc", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: []string{"10.0.0.1"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "web-1", UID: "uid-web-1"},
					Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: ptr.To(true), Terminating: &terminating}},
				{Addresses: []string{"10.0.0.2"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "web-2", UID: "uid-web-2"},
					Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
			},
		}
	}

	watched := func(ms int, typ watch.EventType, obj runtime.Object) listwatch.Notice {
		return listwatch.Notice{Recv: at(ms), Kind: listwatch.KindEvent, Event: &watch.Event{Type: typ, Object: obj}}
	}

	rec := timeline.NewRecorder(pod, []string{"web"}, at(-1000))
	rec.Handle(listwatch.Notice{Stream: timeline.StreamEndpointSlices, Recv: at(-900), Kind: listwatch.KindList,
		List: []runtime.Object{slice(true, false)}, Initial: true})
	rec.MarkT0(at(0), timeline.T0DeleteSent, "DELETE sent")
	deleting := pod.DeepCopy()
	deleting.DeletionTimestamp, deleting.DeletionGracePeriodSeconds = ptr.To(metav1.NewTime(at(30000))), ptr.To[int64](30)
	rec.Handle(watched(5, watch.Modified, deleting))
	rec.Handle(watched(15, watch.Modified, slice(false, true)))
	rec.Handle(watched(20, watch.Added, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: "web-1.kill", UID: "ev-kill"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1", UID: "uid-web-1", FieldPath: "spec.containers{app}"},
		Type:           corev1.EventTypeNormal, Reason: "Killing", Message: "Stopping container app", Count: 1,
		Source: corev1.EventSource{Component: "kubelet"}, LastTimestamp: metav1.NewTime(at(0)),
	}))
	rec.Handle(watched(400, watch.Deleted, deleting))

	v := timeline.ComputeWith(rec.TL, timeline.Options{})
	fmt.Println("endpoint out at", *v.EndpointOutMs, "ms, SIGTERM at", *v.SigtermMs, "ms")
	fmt.Println("risk:", v.Risk, "window:", v.Window, *v.WindowMs, "ms")
	fmt.Println(v.Findings[0][:16]) // the sentences of the verdict, risks first
	// Output:
	// endpoint out at 15 ms, SIGTERM at 20 ms
	// risk: true window: too-short 5 ms
	// no preStop delay
}

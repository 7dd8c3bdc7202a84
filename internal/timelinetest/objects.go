// Package timelinetest builds the Kubernetes objects of a pod's termination
// At fixed times, for the tests of the timeline, the rollout watch and their
// renderers: one pod web-1 of Service-backed app "web" in namespace shop.
package timelinetest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Base is the fixed local clock origin of the constructed timelines.
var Base = time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)

// At is Base plus ms milliseconds.
func At(ms int64) time.Time { return Base.Add(time.Duration(ms) * time.Millisecond) }

// PodUID is the UID of pod web-1.
const PodUID = "uid-web-1"

// PodIP is the address of Pod.
const PodIP = "10.0.0.5"

// Pod is a running pod with one container "app", address PodIP, grace
// period grace seconds and the given preStop hook (nil for none).
func Pod(grace int64, preStop *corev1.LifecycleHandler) *corev1.Pod {
	c := corev1.Container{Name: "app", Image: "nginx"}
	if preStop != nil {
		c.Lifecycle = &corev1.Lifecycle{PreStop: preStop}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: PodUID, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{c}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: PodIP, PodIPs: []corev1.PodIP{{IP: PodIP}},
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
}

// SleepHook is a preStop sleep action of seconds.
func SleepHook(seconds int64) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: seconds}}
}

// Deleting returns pod with deletionTimestamp = request + its grace period.
func Deleting(pod *corev1.Pod, request time.Time) *corev1.Pod {
	p := pod.DeepCopy()
	g := *p.Spec.TerminationGracePeriodSeconds
	dt := metav1.NewTime(request.Add(time.Duration(g) * time.Second))
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &dt, &g
	return p
}

// Exited returns pod with container app terminated with code at finished.
func Exited(pod *corev1.Pod, code int32, finished time.Time) *corev1.Pod {
	p := pod.DeepCopy()
	p.Status.Phase = corev1.PodSucceeded
	if code != 0 {
		p.Status.Phase = corev1.PodFailed
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodCompleted"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: code, FinishedAt: metav1.NewTime(finished)}}}}
	return p
}

// Bool returns a pointer to b.
func Bool(b bool) *bool { return &b }

// Slice returns an EndpointSlice of service holding the pod's endpoint with
// the given conditions (none when ready is nil) beside the ready endpoint
// of another pod, web-2, so that kube-proxy never falls back to this one.
func Slice(name, service string, ready, serving, terminating *bool) *discoveryv1.EndpointSlice {
	s := LonelySlice(name, service, ready, serving, terminating)
	s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0.2"},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: "web-2", UID: "uid-web-2"},
		Conditions: discoveryv1.EndpointConditions{Ready: Bool(true)}})
	return s
}

// LonelySlice is slice without the other pod: this pod's endpoint is the
// Service's only one.
func LonelySlice(name, service string, ready, serving, terminating *bool) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop",
		Labels: map[string]string{discoveryv1.LabelServiceName: service}}}
	if ready != nil {
		s.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: "web-1", UID: PodUID},
			Conditions: discoveryv1.EndpointConditions{Ready: ready, Serving: serving, Terminating: terminating}}}
	}
	return s
}

// ReadySlice holds web-1 ready and serving.
func ReadySlice(name, service string) *discoveryv1.EndpointSlice {
	return Slice(name, service, Bool(true), Bool(true), Bool(false))
}

// TerminatingSlice holds web-1 serving and terminating, not ready.
func TerminatingSlice(name, service string) *discoveryv1.EndpointSlice {
	return Slice(name, service, Bool(false), Bool(true), Bool(true))
}

// PodsSlice returns an EndpointSlice of service (no namespace) holding one
// endpoint per pod UID in eps, addressed 10.0.0.<uid>, with its
// conditions: the capacity tracker's tests count them.
func PodsSlice(name, service string, eps map[string]discoveryv1.EndpointConditions) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}}}
	for uid, c := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0." + uid},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", UID: types.UID(uid)}, Conditions: c})
	}
	return s
}

// KubeEvent is a kubelet Event about the pod's container app.
func KubeEvent(uid, typ, reason, msg string, when time.Time) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: "shop", UID: types.UID(uid)},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1", UID: PodUID, FieldPath: "spec.containers{app}"},
		Type:           typ, Reason: reason, Message: msg, Count: 1, Source: corev1.EventSource{Component: "kubelet"},
		LastTimestamp: metav1.NewTime(when)}
}

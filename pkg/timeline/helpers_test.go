package timeline

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
)

// The objects the tests build come from internal/timelinetest, shared with
// the rollout watch's and the renderers' tests.
var (
	base             = timelinetest.Base
	at               = timelinetest.At
	testPod          = timelinetest.Pod
	sleepHook        = timelinetest.SleepHook
	deleting         = timelinetest.Deleting
	exited           = timelinetest.Exited
	boolp            = timelinetest.Bool
	slice            = timelinetest.Slice
	lonelySlice      = timelinetest.LonelySlice
	readySlice       = timelinetest.ReadySlice
	terminatingSlice = timelinetest.TerminatingSlice
	kubeEvent        = timelinetest.KubeEvent
)

const podUID = timelinetest.PodUID

func hasFinding(v Verdict, sub string) bool {
	return slices.ContainsFunc(v.Findings, func(f string) bool { return strings.Contains(f, sub) })
}

// terminate is timelinetest.Terminate on this package's Recorder.
func terminate(t *testing.T, grace int64, hook bool, hookSeconds int64, services []string, exitMs int64, code int32, extra func(r *Recorder)) *Timeline {
	t.Helper()
	return timelinetest.Terminate(t, NewRecorder, grace, hook, hookSeconds, services, exitMs, code, extra).TL
}

// killedPod plays pod's deletion up to the kubelet's Killing: ready in
// Service web, DELETE sent at +0, deletion seen at +5 ms, the endpoint
// terminating at +15 ms and one Killing for every container at +20 ms. It
// returns the recorder and the deleting pod, for the exits to follow.
func killedPod(pod *corev1.Pod) (*Recorder, *corev1.Pod) {
	r, del := deletedPod(pod)
	r.feedSlice(at(15), watch.Modified, terminatingSlice("web-abc", "web"))
	ev := kubeEvent("ev-kill", "Normal", "Killing", "Stopping container", at(0))
	ev.InvolvedObject.FieldPath = ""
	r.feedEvent(at(20), ev, false)
	return r, del
}

// deletedPod plays pod ready in Service web, DELETE sent at +0 and the
// deletion seen at +5 ms.
func deletedPod(pod *corev1.Pod) (*Recorder, *corev1.Pod) {
	r := NewRecorder(pod, []string{"web"}, at(-1000))
	r.feedSlices(at(-900), nil, true)
	r.feedSlice(at(-800), watch.Added, readySlice("web-abc", "web"))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	del := deleting(pod, at(0))
	r.feedPod(at(5), watch.Modified, del)
	return r, del
}

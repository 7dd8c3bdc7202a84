package timeline

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// podsListed is the notice of a List of the pod's stream, received at recv.
func podsListed(recv time.Time, pods []corev1.Pod) listwatch.Notice {
	n := listwatch.Notice{Stream: StreamPods, Recv: recv, Kind: listwatch.KindList}
	for i := range pods {
		n.List = append(n.List, &pods[i])
	}
	return n
}

// eventSeen is the notice of ev received at recv: in the stream's first
// List when initial, else as a watch notification (a later List gives it
// to the Recorder the same way).
func eventSeen(recv time.Time, ev *corev1.Event, initial bool) listwatch.Notice {
	if initial {
		return listwatch.Notice{Stream: StreamEvents, Recv: recv, Kind: listwatch.KindList, List: []runtime.Object{ev}, Initial: true}
	}
	return timelinetest.Watched(recv, watch.Added, ev)
}

// httpGetHook is a preStop httpGet action on path.
func httpGetHook(path string) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: path}}
}

// containerExited returns pod with container name (regular or init)
// terminated with code at finished, the other statuses kept.
func containerExited(pod *corev1.Pod, name string, code int32, finished time.Time) *corev1.Pod {
	p := pod.DeepCopy()
	st := corev1.ContainerStatus{Name: name, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: code, FinishedAt: metav1.NewTime(finished)}}}
	for _, c := range p.Spec.InitContainers {
		if c.Name == name {
			p.Status.InitContainerStatuses = withStatus(p.Status.InitContainerStatuses, st)
			return p
		}
	}
	p.Status.ContainerStatuses = withStatus(p.Status.ContainerStatuses, st)
	return p
}

func withStatus(list []corev1.ContainerStatus, st corev1.ContainerStatus) []corev1.ContainerStatus {
	for i := range list {
		if list[i].Name == st.Name {
			list[i] = st
			return list
		}
	}
	return append(list, st)
}

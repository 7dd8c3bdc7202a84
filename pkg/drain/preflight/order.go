package preflight

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Order values of Flags.Order (--order).
const (
	// OrderNone evicts every pod at once, as kubectl drain does (the
	// empty string means the same).
	OrderNone = "none"
	// OrderPriority evicts in waves by pod priority, lowest first.
	OrderPriority = "priority"
)

// DrainLabel is Cluster API's pod label that changes how a node drain
// treats the pod; its values DrainSkip and DrainWaitCompleted
// (sigs.k8s.io/cluster-api api/core/v1beta1/machinedrainrules_types.go:
// PodDrainLabel, "the only valid values are skip and wait-completed").
const (
	DrainLabel         = "cluster.x-k8s.io/drain"
	DrainSkip          = "skip"
	DrainWaitCompleted = "wait-completed"
)

// Wave is the pods of one priority, evicted together once every pod of
// the waves before it is gone.
type Wave struct {
	// Priority is the pods' spec.priority (0 when unset, as the API's
	// default without a PriorityClass).
	Priority int32 `json:"priority"`
	// Pods are "namespace/name", sorted.
	Pods []string `json:"pods"`
}

// drainLabelValue returns the Cluster API drain label's value of pod when
// f asks for an order (the label is honoured with --order priority
// only), else "".
func drainLabelValue(pod *corev1.Pod, f Flags) string {
	if f.Order != OrderPriority {
		return ""
	}
	switch v := pod.Labels[DrainLabel]; v {
	case DrainSkip, DrainWaitCompleted:
		return v
	}
	return ""
}

// labelled records pod, which carries Cluster API's drain label v, as not
// evicted; a wait-completed pod is also waited for.
func labelled(r *Report, pod *corev1.Pod, v string, f Flags) {
	note := "labelled " + DrainLabel + "=" + DrainSkip + " (Cluster API): not evicted"
	if v == DrainWaitCompleted {
		note = "labelled " + DrainLabel + "=" + DrainWaitCompleted + " (Cluster API): not evicted, waited for until it completes"
		r.WaitCompleted = append(r.WaitCompleted, podKey(pod))
	}
	r.Skipped = append(r.Skipped, podInfo(pod, f, note))
}

// podPriority is the priority the waves sort pod by: spec.priority,
// which admission sets from its PriorityClass, 0 when unset.
func podPriority(pod *corev1.Pod) int32 {
	return ptr.Deref(pod.Spec.Priority, 0)
}

// waves groups pods by priority, lowest first; nil unless f.Order is
// OrderPriority.
func waves(pods []*corev1.Pod, f Flags) []Wave {
	if f.Order != OrderPriority {
		return nil
	}
	by := map[int32][]string{}
	for _, p := range pods {
		by[podPriority(p)] = append(by[podPriority(p)], podKey(p))
	}
	out := make([]Wave, 0, len(by))
	for prio, names := range by {
		sort.Strings(names)
		out = append(out, Wave{Priority: prio, Pods: names})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Priority < out[b].Priority })
	return out
}

// wavesGrace is the grace the evictions take in seconds: the longest
// grace period of pods, or with --order priority the sum of each wave's
// longest, as one wave waits for the one before.
func wavesGrace(pods []*corev1.Pod, f Flags) int64 {
	if f.Order != OrderPriority {
		return longestGrace(pods, f)
	}
	by := map[int32][]*corev1.Pod{}
	for _, p := range pods {
		by[podPriority(p)] = append(by[podPriority(p)], p)
	}
	var sum int64
	for _, wave := range by {
		sum += longestGrace(wave, f)
	}
	return sum
}

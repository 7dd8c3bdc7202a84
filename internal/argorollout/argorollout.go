// Package argorollout reads an Argo Rollouts Rollout (argoproj.io/v1alpha1)
// as unstructured data, with Argo's own rules: how its canary surge bounds
// resolve, what a restart of its pod template does under its strategy, and
// when its rollout is done or has failed. It imports no Argo Go types: the
// rules are restated here, each with the Argo source it comes from
// (github.com/argoproj/argo-rollouts v1.8.3).
package argorollout

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is the Rollout resource Argo Rollouts serves.
var Resource = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "rollouts"}

// Kind is the Rollout's kind, as its ReplicaSets' controller reference names it.
const Kind = "Rollout"

// PodTemplateHashLabel is the label Argo puts on each revision's
// ReplicaSet and pods, and in the selectors of the Services it manages.
const PodTemplateHashLabel = "rollouts-pod-template-hash"

// Argo's defaults (utils/defaults/defaults.go).
const (
	defaultReplicas       = 1
	defaultMaxSurge       = "25"
	defaultMaxUnavailable = "25"
	defaultScaleDownDelay = 30
)

// Replicas returns spec.replicas, 1 when unset (GetReplicasOrDefault).
func Replicas(ro *unstructured.Unstructured) int32 {
	n, found, err := unstructured.NestedInt64(ro.Object, "spec", "replicas")
	if !found || err != nil {
		return defaultReplicas
	}
	return int32(n)
}

// fencepost resolves one of Argo's surge bounds against replicas as its
// resolveFenceposts does (utils/replicaset/replicaset.go): through the
// deprecated intstr.GetValueFromIntOrPercent, which reads every string as
// a percentage, "25" as much as "25%", rounded up for maxSurge and down
// for maxUnavailable. An integer is a pod count.
func fencepost(v any, def string, replicas int32, roundUp bool) (int32, error) {
	switch x := v.(type) {
	case nil:
		v = def
	case int64:
		return int32(x), nil
	case float64:
		return int32(x), nil
	}
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("%v is neither a number nor a percentage", v)
	}
	p, err := strconv.Atoi(strings.ReplaceAll(s, "%", ""))
	if err != nil {
		return 0, fmt.Errorf("invalid value %q", s)
	}
	f := float64(p) * float64(replicas) / 100
	if roundUp {
		return int32(math.Ceil(f)), nil
	}
	return int32(math.Floor(f)), nil
}

// CanaryBounds resolves a canary Rollout's maxSurge and maxUnavailable
// against replicas as Argo does (MaxSurge and MaxUnavailable in
// utils/replicaset/replicaset.go): unset, each is 25 percent; when both
// resolve to 0, maxUnavailable becomes 1 (Argo's guard against a rollout
// that cannot move); maxUnavailable never exceeds replicas.
func CanaryBounds(canary map[string]any, replicas int32) (surge, unavailable int32, err error) {
	if surge, err = fencepost(canary["maxSurge"], defaultMaxSurge, replicas, true); err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	if unavailable, err = fencepost(canary["maxUnavailable"], defaultMaxUnavailable, replicas, false); err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, min(unavailable, replicas), nil
}

// BlueGreenMaxUnavailable resolves a blueGreen Rollout's maxUnavailable
// (rounded down, 25 percent when unset, at most replicas), as Argo's
// MaxUnavailable does for a strategy that is not canary.
func BlueGreenMaxUnavailable(blueGreen map[string]any, replicas int32) (int32, error) {
	u, err := fencepost(blueGreen["maxUnavailable"], defaultMaxUnavailable, replicas, false)
	return min(u, replicas), err
}

// ScaleDownDelaySeconds returns the blueGreen strategy's
// scaleDownDelaySeconds: how long the old ReplicaSet keeps its pods after
// the active Service switched (30 when unset).
func ScaleDownDelaySeconds(blueGreen map[string]any) int64 {
	if n, ok := blueGreen["scaleDownDelaySeconds"].(int64); ok {
		return n
	}
	return defaultScaleDownDelay
}

package argorollout

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Status judges ro's rollout as `kubectl argo rollouts status` does
// (GetRolloutPhase in utils/rollout/rolloututil.go): not done until the
// controller has observed its generation (status.observedGeneration, a
// string) and is not unpausing; then done when status.phase is Healthy,
// failed (err says why) when it is Degraded: an aborted rollout, an
// invalid spec, or its progressDeadlineSeconds passed (600 s unless set).
// The controller computes the phase itself (Argo 1.0 and later) from the
// revision's updated and available replicas, old replicas left (basic
// canary), the active Service switched (blueGreen) and the stable
// revision being the current one.
func Status(ro *unstructured.Unstructured) (done bool, err error) {
	observed, _, _ := unstructured.NestedString(ro.Object, "status", "observedGeneration")
	if g, perr := strconv.ParseInt(observed, 10, 64); perr == nil && g < ro.GetGeneration() {
		return false, nil
	}
	controllerPause, _, _ := unstructured.NestedBool(ro.Object, "status", "controllerPause")
	pauses, _, _ := unstructured.NestedSlice(ro.Object, "status", "pauseConditions")
	if controllerPause && len(pauses) == 0 {
		return false, nil
	}
	phase, _, _ := unstructured.NestedString(ro.Object, "status", "phase")
	switch phase {
	case "Healthy":
		return true, nil
	case "Degraded":
		return false, fmt.Errorf("Rollout %s/%s is Degraded: %s", ro.GetNamespace(), ro.GetName(), degraded(ro))
	}
	return false, nil
}

// degraded returns status.message when ro's status.phase is Degraded
// (Argo's reason first: InvalidSpec, RolloutAborted,
// ProgressDeadlineExceeded), "no status.message" when it has none, "" in any other
// phase.
func degraded(ro *unstructured.Unstructured) string {
	if phase, _, _ := unstructured.NestedString(ro.Object, "status", "phase"); phase != "Degraded" {
		return ""
	}
	if msg, _, _ := unstructured.NestedString(ro.Object, "status", "message"); msg != "" {
		return msg
	}
	return "no status.message"
}

// unhandled says why no Argo Rollouts controller would roll a restart of
// ro: none has handled it (no status.observedGeneration: Argo uninstalled
// with its CRD and ReplicaSets left, or its controller watching other
// namespaces), or none has handled its last change (observedGeneration
// below metadata.generation). The drain would then wait for the rollout
// until --timeout, the node cordoned. "" when handled, or when
// observedGeneration is not a number, which Status does not judge either.
func unhandled(ro *unstructured.Unstructured) string {
	observed, _, _ := unstructured.NestedString(ro.Object, "status", "observedGeneration")
	if observed == "" {
		return "no Argo Rollouts controller has handled it (no status.observedGeneration): a restart would never be rolled"
	}
	if g, err := strconv.ParseInt(observed, 10, 64); err == nil && g < ro.GetGeneration() {
		return fmt.Sprintf("its generation %d not handled by an Argo Rollouts controller (status.observedGeneration %d): "+
			"a restart may never be rolled", ro.GetGeneration(), g)
	}
	return ""
}

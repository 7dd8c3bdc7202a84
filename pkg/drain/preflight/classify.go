package preflight

import (
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Annotations other tools honour to keep a pod from being disrupted
// (cluster-autoscaler and Karpenter). A drain reports such pods and refuses
// to evict them unless told to (--evict-do-not-disrupt).
const (
	safeToEvictAnnotation  = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	doNotDisruptAnnotation = "karpenter.sh/do-not-disrupt"
)

// Flags are the user's choices that decide which pods a drain may remove.
// Their names and meanings are those of `kubectl drain`.
type Flags struct {
	// Force deletes pods that declare no controller (--force).
	Force bool
	// DeleteEmptyDirData deletes pods with emptyDir volumes (--delete-emptydir-data).
	DeleteEmptyDirData bool
	// IgnoreDaemonSets leaves DaemonSet-managed pods in place (--ignore-daemonsets).
	IgnoreDaemonSets bool
	// DisableEviction deletes pods instead of evicting them, bypassing
	// PodDisruptionBudgets (--disable-eviction).
	DisableEviction bool
	// EvictDoNotDisrupt evicts pods annotated not to be disrupted (--evict-do-not-disrupt).
	EvictDoNotDisrupt bool
	// GracePeriodSeconds overrides each pod's terminationGracePeriodSeconds
	// when >= 0 (--grace-period); -1 keeps each pod's own.
	GracePeriodSeconds int
	// Surge rolls each Deployment whose Ready pods are all on the node
	// before its pods are evicted (--surge, SurgePlan).
	Surge bool
	// Order is OrderNone or OrderPriority (--order).
	Order string
	// DeleteAfter, above 0, is --delete-after: a pod whose
	// PodDisruptionBudget refuses it is deleted past the budget this long
	// after the node's evictions start. The preflight then says so of each
	// such budget, a warning instead of a blocker (deleteAfterPlan). The
	// Drainer sets it from its own DeleteAfter.
	DeleteAfter time.Duration
	// Timeout is --timeout (0: none), which a blocked verdict says the
	// drain waits for; the Drainer sets it from its own Timeout.
	Timeout time.Duration
}

// podAction says what a drain does with one pod on the node.
type podAction int

const (
	actionEvict  podAction = iota // evicted (or deleted with --disable-eviction)
	actionSkip                    // left in place: mirror pod, ignored DaemonSet pod
	actionRefuse                  // the drain refuses to start: a flag is needed
)

// classification is the outcome for one pod and, unless evicted, why.
type classification struct {
	action podAction
	// kind is the blocker for actionRefuse (BlockerNeedsForce, ...).
	kind   IssueKind
	reason string
}

// classify decides what the drain does with pod, in the order and with the
// rules of the filters of k8s.io/kubectl/pkg/drain (filters.go: DaemonSet,
// mirror pod, local storage, unreplicated), plus the do-not-disrupt
// annotations. At drain time the library's own filters decide; this copy
// only explains, per pod, which flag a refused pod needs (the library
// reports refusals as one joined message).
func classify(pod *corev1.Pod, f Flags) classification {
	ref := metav1.GetControllerOf(pod)
	if ref != nil && ref.Kind == "DaemonSet" && ref.APIVersion == appsv1.SchemeGroupVersion.String() && !finished(pod) {
		if !f.IgnoreDaemonSets {
			return classification{actionRefuse, BlockerNeedsIgnoreDaemonSets,
				"DaemonSet-managed pod: needs --ignore-daemonsets (it is then left in place)"}
		}
		return classification{action: actionSkip, reason: "DaemonSet-managed: ignored (--ignore-daemonsets)"}
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return classification{action: actionSkip, reason: "static (mirror) pod: managed by the kubelet, not evicted"}
	}
	emptyDir := slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.EmptyDir != nil })
	if emptyDir && !finished(pod) && !f.DeleteEmptyDirData {
		return classification{actionRefuse, BlockerNeedsDeleteEmptyDirData,
			"uses emptyDir: needs --delete-emptydir-data (its local data is lost)"}
	}
	if ref == nil && !finished(pod) && !f.Force {
		return classification{actionRefuse, BlockerNeedsForce,
			"declares no controller: needs --force (nothing recreates it)"}
	}
	if why := doNotDisrupt(pod); why != "" && !f.EvictDoNotDisrupt {
		return classification{actionRefuse, BlockerDoNotDisrupt,
			why + ": an operator asked not to disrupt it (--evict-do-not-disrupt overrides)"}
	}
	return classification{action: actionEvict}
}

// Evicts reports whether a drain under f evicts (or, with
// --disable-eviction, deletes) pod: kubectl's filters (k8s.io/kubectl/pkg/drain
// filters.go) pick it for deletion, as classify copies them and the
// agreement test holds them together, it is not annotated not to be
// disrupted unless f allows it, and, under --order, Cluster API's drain
// label does not leave it in place (drainLabelValue): the same filters as
// the drain's own.
func Evicts(pod *corev1.Pod, f Flags) bool {
	return classify(pod, f).action == actionEvict && drainLabelValue(pod, f) == ""
}

// doNotDisrupt returns the annotation that asks not to disrupt pod, as
// `key=value`, or "" when there is none.
func doNotDisrupt(pod *corev1.Pod) string {
	if v, ok := pod.Annotations[safeToEvictAnnotation]; ok && v == "false" {
		return fmt.Sprintf("%s=%q", safeToEvictAnnotation, v)
	}
	if v, ok := pod.Annotations[doNotDisruptAnnotation]; ok && v == "true" {
		return fmt.Sprintf("%s=%q", doNotDisruptAnnotation, v)
	}
	return ""
}

// evictionWarningChecks are the warning-level checks of inspect.PodFindings
// the drain shows beside the error-level ones. The drain's termination
// warnings answer one question: does this pod lose requests at the moment
// it is evicted? sidecar-stops-first does: its proxy gets SIGTERM while the
// app still serves through it. The audit's other warning-level checks need
// what one pod does not hold (Services, PDBs, load balancers), and the
// preflight says the PDB and replica facts itself (single-replica,
// all-replicas-on-node, pdb-*), so showing them here would repeat it.
var evictionWarningChecks = map[string]bool{"sidecar-stops-first": true}

// AuditWarnings returns the audit's termination findings of pod that mean
// it loses requests when evicted, one "check: message" each: every
// error-level finding of inspect.PodFindings (preStop longer than the
// grace period, shutdown budget over it, grace period 0) and the
// warning-level checks of evictionWarningChecks (sidecar-stops-first).
func AuditWarnings(pod *corev1.Pod) []string {
	var out []string
	for _, f := range inspect.PodFindings(pod) {
		if f.Severity == inspect.SeverityError || evictionWarningChecks[f.Check] {
			out = append(out, f.Check+": "+f.Message)
		}
	}
	return out
}

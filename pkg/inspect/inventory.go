package inspect

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Input names a kind of object the checks read besides workloads. A check
// that needs an input the collector could not read (RBAC, missing API) is
// reported as skipped with the collector's reason.
type Input string

// Inputs read besides workloads.
const (
	InputServices  Input = "services"
	InputPDBs      Input = "poddisruptionbudgets.policy"
	InputHPAs      Input = "horizontalpodautoscalers.autoscaling"
	InputIngresses Input = "ingresses.networking.k8s.io"
	InputPods      Input = "pods"
	// InputBackendConfigs is GKE's backendconfigs.cloud.google.com.
	InputBackendConfigs Input = "backendconfigs.cloud.google.com"
	// InputTargetGroupBindings is the AWS Load Balancer Controller's
	// targetgroupbindings.elbv2.k8s.aws.
	InputTargetGroupBindings Input = "targetgroupbindings.elbv2.k8s.aws"
)

// Version is a Kubernetes minor version (1.37). The zero Version means
// unknown and is treated as current.
type Version struct {
	Major, Minor int
}

// ParseVersion parses "1.30", "v1.30.2" or "1.30+" (GKE/EKS style).
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(t, ".", 3)
	if len(parts) < 2 {
		return Version{}, fmt.Errorf("version %q is not MAJOR.MINOR (e.g. 1.30)", s)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRight(parts[1], "+"))
	if err1 != nil || err2 != nil {
		return Version{}, fmt.Errorf("version %q is not MAJOR.MINOR (e.g. 1.30)", s)
	}
	return Version{Major: major, Minor: minor}, nil
}

// AtLeast reports whether v >= major.minor; an unknown (zero) v is taken as
// the newest release, so that advice is not withheld for lack of a version.
func (v Version) AtLeast(major, minor int) bool {
	if v.Major == 0 {
		return true
	}
	return v.Major > major || (v.Major == major && v.Minor >= minor)
}

// String returns "1.37", or "current" for the zero Version.
func (v Version) String() string {
	if v.Major == 0 {
		return "current"
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Workload is a pod-creating object reduced to what the checks read: its
// pod template and, for the kinds that have them, desired replicas and
// rollout strategy. Bare pods are workloads whose template is their spec.
type Workload struct {
	Object      ObjectRef
	Source      *Source
	Annotations map[string]string
	Template    corev1.PodTemplateSpec
	// Replicas is the desired replica count after API defaulting (1 when
	// unset); nil for kinds without one (DaemonSet, Job, CronJob).
	Replicas *int32
	// Strategy is the Deployment's rollout strategy (nil for other kinds).
	Strategy *appsv1.DeploymentStrategy
	// MinReadySeconds of a Deployment, StatefulSet or DaemonSet.
	MinReadySeconds int32
	// Batch marks Jobs and CronJobs: they are not behind Services as a rule.
	Batch bool
	// APIVersion is the apiVersion the manifest was written in when it is
	// not the one the workload was read as (extensions/v1beta1 read as
	// apps/v1); empty otherwise and for live objects.
	APIVersion string
	// Generic marks an object of a kind the audit does not know (a custom
	// resource such as an Argo Rollout) audited through its
	// spec.template: Replicas is its spec.replicas when set, nil otherwise.
	Generic bool
	// NamespaceDefaulted is true when the manifest had no namespace and the
	// audit gave it one (-n, the kubeconfig context, or "default").
	NamespaceDefaulted bool
	// UnknownFields are the manifest's fields its API type does not have
	// (the pod template's, for a custom resource), read as absent.
	UnknownFields []UnknownField
	// Group is the API group of a Generic workload's kind.
	Group string
}

// PDB is a PodDisruptionBudget with the manifest it was read from.
type PDB struct {
	policyv1.PodDisruptionBudget
	Source *Source
	// LegacyEmptySelector marks a policy/v1beta1 PDB whose empty selector
	// matches no pod (in policy/v1 an empty selector matches every pod).
	LegacyEmptySelector bool
	// APIVersion is the manifest's apiVersion when it is not policy/v1
	// (policy/v1beta1); empty otherwise and for live objects.
	APIVersion string
	// NamespaceDefaulted is true when the manifest had no namespace and the
	// audit gave it one (-n, the kubeconfig context, or "default").
	NamespaceDefaulted bool
	// UnknownFields are the manifest's fields policy/v1 does not have,
	// read as absent.
	UnknownFields []UnknownField
}

// HPA is what the checks read of a HorizontalPodAutoscaler (v1 or v2).
type HPA struct {
	// Kind is HorizontalPodAutoscaler, or ScaledObject for KEDA's.
	Kind            string
	Namespace, Name string
	// TargetKind and TargetName are spec.scaleTargetRef's kind and name.
	TargetKind, TargetName string
	// MinReplicas defaults to 1 as in the API.
	MinReplicas int32
}

// Inventory is everything an audit reads: workloads and the objects that
// decide how their pods terminate. Fill it from manifests or a live cluster.
type Inventory struct {
	// Live is true when read from a cluster (enables status-based checks).
	Live bool
	// Version is the server (live) or --kube-version (manifests) version.
	Version   Version
	Workloads []*Workload
	Services  []corev1.Service
	PDBs      []PDB
	HPAs      []HPA
	// CRDScale maps "group/Kind" to whether the kind has a scale
	// subresource: from each CustomResourceDefinition read, and live from
	// API discovery for the kinds ScaleQuestions names (SetScale).
	CRDScale map[string]bool
	// workloadRefs are Argo Rollouts that run another workload's pod
	// template (spec.workloadRef), filed as workloads when audited.
	workloadRefs []workloadRef
	// unreadRefs are objects of kinds the audit does not read that name a
	// workload (a VerticalPodAutoscaler's targetRef), said in a note.
	unreadRefs []unreadRef
	Ingresses  []networkingv1.Ingress
	// IngressClasses name the controller of each Ingress class
	// (spec.controller) and the cluster's default class.
	IngressClasses []networkingv1.IngressClass
	// IngressClassesUnread is why the cluster's IngressClasses could not
	// be read ("" when they were, or in a manifest audit): which
	// controller serves each Ingress is then unknown, said in a note.
	IngressClassesUnread string
	// BackendConfigs maps "namespace/name" of a GKE BackendConfig to its
	// spec.connectionDraining.drainingTimeoutSec (seconds).
	BackendConfigs map[string]int64
	// TargetGroupBindings are the AWS Load Balancer Controller's bindings
	// of Services to target groups.
	TargetGroupBindings []TargetGroupBinding
	// Pods are the labels of the live pods in scope (live mode only), used
	// to tell whether a PDB selects any pod right now.
	Pods []PodLabels
	// DrainerCaps are the drainers' caps on a pod's termination the live
	// cluster shows (internal/inspect/load), compared with each workload's
	// shutdown as Options.DrainerCaps are.
	DrainerCaps []DrainerCap
	// Unavailable gives, for each input that could not be read, the reason
	// (nil when all were read).
	Unavailable map[Input]string
	// Objects counts every object read, workloads or not.
	Objects int
	// CustomResources counts, per namespace, manifest objects of API groups
	// the audit does not know (custom resources): operators may create pods
	// from them (a Prometheus object becomes a StatefulSet).
	CustomResources map[string]int
	// NotAudited counts, per reason, objects that may make pods but were
	// not audited (a custom resource without a pod template, a document
	// that does not parse); the summary line says so.
	// The keys' Count is 0.
	NotAudited map[NotAudited]int
	// Notes are said once beside the findings (a custom resource audited
	// as a generic workload).
	Notes []string
}

// AddNotAudited counts an object that was read but not audited, and why:
// reason, and message in words (it does not count it in Objects).
func (inv *Inventory) AddNotAudited(reason NotAuditedReason, message string) {
	if inv.NotAudited == nil {
		inv.NotAudited = map[NotAudited]int{}
	}
	inv.NotAudited[NotAudited{Reason: reason, Message: message}]++
}

// PodLabels is what the checks read of a live pod: its namespace and
// labels, which PDB selectors are matched against, and its controller,
// which tells the workload it belongs to. The labels are the pod's own:
// operators and meshes add labels to running pods that the workload's
// template does not have.
type PodLabels struct {
	Namespace string
	Labels    map[string]string
	// ControllerKind, ControllerName and ControllerAPIVersion are the
	// pod's controller reference (metadata.ownerReferences, controller:
	// true); empty for a bare pod.
	ControllerKind, ControllerName, ControllerAPIVersion string
}

// AddPodLabels records a live pod's namespace, labels and controller
// reference (nil for none). Pods a workload owns are not counted in
// Objects: the workload stands for them.
func (inv *Inventory) AddPodLabels(namespace string, labels map[string]string, controller *metav1.OwnerReference) {
	p := PodLabels{Namespace: namespace, Labels: labels}
	if controller != nil {
		p.ControllerKind, p.ControllerName, p.ControllerAPIVersion = controller.Kind, controller.Name, controller.APIVersion
	}
	inv.Pods = append(inv.Pods, p)
}

// Merge files everything of other into inv: its objects, counts and notes
// (a note already said is not said again). Version and Live stay inv's.
func (inv *Inventory) Merge(other *Inventory) {
	inv.Workloads = append(inv.Workloads, other.Workloads...)
	inv.Services = append(inv.Services, other.Services...)
	inv.PDBs = append(inv.PDBs, other.PDBs...)
	inv.HPAs = append(inv.HPAs, other.HPAs...)
	inv.workloadRefs = append(inv.workloadRefs, other.workloadRefs...)
	inv.unreadRefs = append(inv.unreadRefs, other.unreadRefs...)
	inv.Ingresses = append(inv.Ingresses, other.Ingresses...)
	inv.IngressClasses = append(inv.IngressClasses, other.IngressClasses...)
	inv.IngressClassesUnread = cmp.Or(inv.IngressClassesUnread, other.IngressClassesUnread)
	inv.TargetGroupBindings = append(inv.TargetGroupBindings, other.TargetGroupBindings...)
	inv.Pods = append(inv.Pods, other.Pods...)
	for _, c := range other.DrainerCaps {
		if !slices.Contains(inv.DrainerCaps, c) { // one cluster read twice: one cap
			inv.DrainerCaps = append(inv.DrainerCaps, c)
		}
	}
	inv.Objects += other.Objects
	mergeMap(&inv.CRDScale, other.CRDScale, func(_, v bool) bool { return v })
	mergeMap(&inv.BackendConfigs, other.BackendConfigs, func(_, v int64) int64 { return v })
	mergeMap(&inv.Unavailable, other.Unavailable, func(_, v string) string { return v })
	mergeMap(&inv.CustomResources, other.CustomResources, func(a, b int) int { return a + b })
	mergeMap(&inv.NotAudited, other.NotAudited, func(a, b int) int { return a + b })
	for _, n := range other.Notes {
		if !slices.Contains(inv.Notes, n) {
			inv.Notes = append(inv.Notes, n)
		}
	}
}

// mergeMap files src's entries into *dst, made when it has none: a key
// both have gets merge(dst's value, src's).
func mergeMap[K comparable, V any](dst *map[K]V, src map[K]V, merge func(V, V) V) {
	for k, v := range src {
		if *dst == nil {
			*dst = map[K]V{}
		}
		(*dst)[k] = merge((*dst)[k], v)
	}
}

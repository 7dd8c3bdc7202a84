package preflight

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	deploymentutil "k8s.io/kubectl/pkg/util/deployment"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// RestartedAtAnnotation is the pod template annotation `kubectl rollout
// restart` sets to the time of the restart
// (k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go): a new
// template, so the Deployment controller rolls every pod.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// SurgePlan is one workload whose Ready pods are all on the node: without
// --surge it serves nothing from their eviction until a replacement is
// Ready; with --surge (Deployments and Argo Rollouts whose strategy
// surges) the drain first
// rolls it so that its controller starts the replacements elsewhere and
// removes the old pods only once new ones are Ready.
type SurgePlan struct {
	Namespace string   `json:"namespace"`
	Owner     OwnerRef `json:"owner"`
	// ReadyOnNode is how many of its Ready pods are on the node (all of them).
	ReadyOnNode int `json:"readyOnNode"`
	// Replicas is the Deployment's or Rollout's spec.replicas (0 for other kinds).
	Replicas int32 `json:"replicas"`
	// CanSurge is true when --surge can roll it without going to zero;
	// WithSurge when --surge was given (the drain then rolls it).
	CanSurge  bool `json:"canSurge"`
	WithSurge bool `json:"withSurge"`
	// MaxSurge and MaxUnavailable are the Deployment's rolling update
	// bounds in pods, resolved against Replicas as its controller does;
	// for a Rollout, Argo's (a blueGreen one surges all Replicas).
	MaxSurge       int32 `json:"maxSurge"`
	MaxUnavailable int32 `json:"maxUnavailable"`
	// Plan says, for a person, what --surge does for it, or why it cannot.
	Plan string `json:"plan"`
	// ZeroCapacitySeconds is how long, in seconds, it has no Ready pod
	// when evicted without --surge: the time its pods took from creation
	// to Ready; nil when unknown (ZeroCapacity says why).
	ZeroCapacitySeconds *int64 `json:"zeroCapacitySeconds,omitempty"`
	// ZeroCapacity says the same in words, or "unknown" and why.
	ZeroCapacity string `json:"zeroCapacity"`
}

// surgePlans returns a plan for each workload of groups whose Ready pods
// are all among those evicted.
func surgePlans(groups []OwnerGroup, in Input) []SurgePlan {
	plans := []SurgePlan{}
	for _, g := range groups {
		if !g.Owner.replicated() || g.Owner.Kind == "Job" {
			continue
		}
		onNode := 0
		for _, p := range g.Pods {
			if p.Ready {
				onNode++
			}
		}
		pods := workloadPods(g.Namespace, g.Owner, in)
		ready := 0
		for _, p := range pods {
			if isReady(p) {
				ready++
			}
		}
		if onNode == 0 || onNode < ready {
			continue
		}
		s := SurgePlan{Namespace: g.Namespace, Owner: g.Owner, ReadyOnNode: onNode, WithSurge: in.Flags.Surge}
		room := roomForNewPods(pods, in)
		s.ZeroCapacitySeconds, s.ZeroCapacity = zeroCapacity(pods)
		if !room {
			s.ZeroCapacitySeconds, s.ZeroCapacity = nil, "as long as the node is cordoned: "+noRoomElsewhere
		}
		if g.Owner.Kind == argorollout.Kind {
			s.planRollout(in.Rollouts[g.Namespace+"/"+g.Owner.Name], in.RolloutsUnknown[g.Namespace])
		} else {
			s.plan(in.Deployments[g.Namespace+"/"+g.Owner.Name])
		}
		if s.CanSurge && !room {
			s.CanSurge = false
			s.Plan = "cannot surge: " + noRoomElsewhere + "; the rollout would wait for them until --timeout"
		}
		plans = append(plans, s)
	}
	return plans
}

// noRoomElsewhere says that no node but the drained one may take a
// workload's new pods (roomForNewPods false): they stay Pending until it
// is uncordoned.
const noRoomElsewhere = "no other node may take its new pods (Ready, schedulable, matching their nodeSelector and " +
	"required node affinity, tolerating their taints), so they stay Pending until the node is uncordoned"

// roomForNewPods reports whether a node other than the drained one may
// take a new pod of the workload of pods: the restart changes only an
// annotation, so a new pod is scheduled as its current ones are.
func roomForNewPods(pods []*corev1.Pod, in Input) bool {
	return slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return roomElsewhere(p, in.Node.Name, in.Nodes) })
}

// workloadPods returns the live pods of owner in namespace.
func workloadPods(namespace string, owner OwnerRef, in Input) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range in.NamespacePods {
		p := &in.NamespacePods[i]
		if p.Namespace == namespace && p.DeletionTimestamp == nil && ownerOf(p, in.RSOwners) == owner {
			out = append(out, p)
		}
	}
	return out
}

// plan fills CanSurge and Plan for s, d being its Deployment (nil for
// other kinds, or when it could not be read).
func (s *SurgePlan) plan(d *appsv1.Deployment) {
	switch {
	case s.Owner.Kind == "StatefulSet":
		s.Plan = "cannot surge: a StatefulSet replaces a pod only after the old one is gone (one pod per ordinal)"
		return
	case s.Owner.Kind != "Deployment":
		// Other kinds may surge by their own rules (an OpenKruise
		// CloneSet's maxSurge); --surge drives none of them (docs/drain-surge.md says why).
		s.Plan = "cannot surge: --surge rolls Deployments and Argo Rollouts only, not a " + s.Owner.Kind
		return
	case d == nil:
		s.Plan = "cannot surge: the Deployment could not be read"
		return
	}
	s.Replicas = ptr.Deref(d.Spec.Replicas, 1)
	s.CanSurge, s.Plan = surgeable(d, s)
}

// surgeable says whether a rollout of d keeps a Ready pod throughout, and
// what --surge does or why it cannot. The bounds are resolved by the
// Deployment controller's own rule (k8s.io/kubectl/pkg/util/deployment
// ResolveFenceposts, as pkg/controller/deployment/util: maxSurge rounded
// up, maxUnavailable down, against spec.replicas).
func surgeable(d *appsv1.Deployment, s *SurgePlan) (bool, string) {
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return false, "cannot surge: strategy Recreate removes every old pod before starting new ones"
	}
	if d.Spec.Paused {
		return false, "cannot surge: the Deployment is paused, its controller would not roll it"
	}
	ru := ptr.Deref(d.Spec.Strategy.RollingUpdate, appsv1.RollingUpdateDeployment{})
	surge, unavailable, err := deploymentutil.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, s.Replicas)
	if err != nil {
		return false, "cannot surge: " + err.Error()
	}
	s.MaxSurge, s.MaxUnavailable = surge, unavailable
	switch {
	case surge == 0:
		return false, fmt.Sprintf("cannot surge: maxSurge resolves to 0 pods of %d: its controller removes old pods before starting new ones", s.Replicas)
	case unavailable >= s.Replicas:
		return false, fmt.Sprintf("cannot surge: maxUnavailable resolves to %d of %d replicas: its controller may remove every old pod at once", unavailable, s.Replicas)
	}
	return true, fmt.Sprintf("--surge restarts it as `kubectl rollout restart` does (pod template annotation %s): "+
		"ALL its %d pod(s) are replaced, %d new at a time on other nodes, each old one removed once a new one is Ready",
		RestartedAtAnnotation, s.Replicas, surge)
}

// zeroCapacity estimates how long the workload of pods has no Ready pod
// once they are evicted: the longest time one of them took from creation
// to Ready (its Ready condition's lastTransitionTime), counting only pods
// whose containers never restarted, whose Ready time is their start's.
func zeroCapacity(pods []*corev1.Pod) (*int64, string) {
	var longest time.Duration
	known := false
	for _, p := range pods {
		if !isReady(p) || restarted(p) {
			continue
		}
		if c := podspec.Condition(p, corev1.PodReady); c != nil && !c.LastTransitionTime.IsZero() {
			longest = max(longest, c.LastTransitionTime.Sub(p.CreationTimestamp.Time))
			known = true
		}
	}
	if !known {
		return nil, "unknown: no Ready pod of it shows when it became Ready from its start"
	}
	secs := int64(longest.Round(time.Second).Seconds())
	if secs == 0 {
		return &secs, "under 1s: its pods took under 1s from creation to Ready"
	}
	return &secs, fmt.Sprintf("about %ds: its pods took up to %ds from creation to Ready", secs, secs)
}

// restarted reports whether a container of pod restarted: its Ready
// condition then dates from the restart, not from its creation.
func restarted(p *corev1.Pod) bool {
	return slices.ContainsFunc(p.Status.ContainerStatuses, func(c corev1.ContainerStatus) bool { return c.RestartCount > 0 })
}

// readDeployments returns the Deployments of namespace by
// "namespace/name"; none when they may not be read (the surge plans then
// say so).
func readDeployments(ctx context.Context, client kubernetes.Interface, namespace string) map[string]*appsv1.Deployment {
	out := map[string]*appsv1.Deployment{}
	list, err := client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return out
	}
	for i := range list.Items {
		out[namespace+"/"+list.Items[i].Name] = &list.Items[i]
	}
	return out
}

// notSurged returns the groups that --surge does not roll: a surged
// workload keeps a Ready pod, so the warnings of going down are not its.
func notSurged(groups []OwnerGroup, plans []SurgePlan) []OwnerGroup {
	rolled := map[string]bool{}
	for _, p := range plans {
		if p.WithSurge && p.CanSurge {
			rolled[p.Namespace+"/"+p.Owner.String()] = true
		}
	}
	out := make([]OwnerGroup, 0, len(groups))
	for _, g := range groups {
		if !rolled[g.Namespace+"/"+g.Owner.String()] {
			out = append(out, g)
		}
	}
	return out
}

package preflight

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Gather lists what Check reads for node: all nodes, the pods bound to
// node matching podSelector (a label selector, "" for all), every pod and
// PodDisruptionBudget of their namespaces, and the Deployments controlling
// their ReplicaSets, the Argo Rollouts of namespaces where a Rollout
// controls a ReplicaSet (through dc; nil leaves them unread), and the
// caller's permissions for what the drain does (SelfSubjectAccessReviews).
// It returns the API error (Forbidden, unreachable) of the first list
// that fails; a ReplicaSet it may not read is shown as itself, Rollouts it
// cannot read are named in RolloutsUnknown.
func Gather(ctx context.Context, client kubernetes.Interface, dc dynamic.Interface, node *corev1.Node, podSelector string, flags Flags) (Input, error) {
	return gather(ctx, client, node, podSelector, flags, &clusterReads{dynamic: dc})
}

// clusterReads keeps the lists that the preflights of several nodes share
// (all nodes; each namespace's pods, PDBs and ReplicaSet owners), so that
// a pool's preflight makes each of them once rather than once per node.
type clusterReads struct {
	nodes      []corev1.Node
	nodesRV    string
	namespaces map[string]*namespaceReads
	// answers are the SelfSubjectAccessReviews' answers, by question.
	answers map[AccessCheck]AccessCheck
	// pods, when set, are every pod of the cluster (a pool's one list):
	// each node's and each namespace's pods are taken from it.
	pods *corev1.PodList
	// dynamic reads Argo Rollouts; nil when the caller has none.
	dynamic dynamic.Interface
}

// namespaceReads is what clusterReads.namespace lists in one namespace.
type namespaceReads struct {
	pods   []corev1.Pod
	pdbs   []policyv1.PodDisruptionBudget
	owners map[string]OwnerRef // "namespace/replicaSet" -> its controller
	// deployments by "namespace/name"; empty when they may not be read.
	deployments map[string]*appsv1.Deployment
	// rollouts by "namespace/name", read only where a Rollout controls a
	// ReplicaSet; rolloutsUnknown says why they could not be, if so.
	rollouts        map[string]*unstructured.Unstructured
	rolloutsUnknown string
}

// gather is Gather reading shared lists through reads.
func gather(ctx context.Context, client kubernetes.Interface, node *corev1.Node, podSelector string, flags Flags, reads *clusterReads) (Input, error) {
	in := Input{Node: node, Flags: flags, RSOwners: map[string]OwnerRef{}, Deployments: map[string]*appsv1.Deployment{},
		Rollouts: map[string]*unstructured.Unstructured{}, RolloutsUnknown: map[string]string{}}
	if reads.nodes == nil {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return in, fmt.Errorf("listing nodes: %w", err)
		}
		reads.nodes, reads.nodesRV = nodes.Items, nodes.ResourceVersion
	}
	in.Nodes = reads.nodes
	pods, err := reads.nodePods(ctx, client, node.Name, podSelector)
	if err != nil {
		return in, err
	}
	in.Pods, in.PodsResourceVersion = pods.Items, pods.ResourceVersion
	seen, budgeted := map[string]bool{}, map[string]bool{}
	for i := range in.Pods {
		p := &in.Pods[i]
		if seen[p.Namespace] {
			continue
		}
		seen[p.Namespace] = true
		ns, err := reads.namespace(ctx, client, p.Namespace)
		if err != nil {
			return in, err
		}
		in.NamespacePods = shareOrAppend(in.NamespacePods, ns.pods)
		in.PDBs = shareOrAppend(in.PDBs, ns.pdbs)
		budgeted[p.Namespace] = len(ns.pdbs) > 0
		maps.Copy(in.RSOwners, ns.owners)
		maps.Copy(in.Deployments, ns.deployments)
		maps.Copy(in.Rollouts, ns.rollouts)
		if ns.rolloutsUnknown != "" {
			in.RolloutsUnknown[p.Namespace] = ns.rolloutsUnknown
		}
	}
	namespaces := slices.Sorted(maps.Keys(seen))
	if reads.answers == nil {
		reads.answers = map[AccessCheck]AccessCheck{}
	}
	in.Access = reviewChecks(ctx, client, accessNeeded(node.Name, namespaces, budgeted, flags), reads.answers)
	in.Access = append(in.Access, reviewChecks(ctx, client, surgeAccessNeeded(in.Pods, in.RSOwners, flags), reads.answers)...)
	in.Now = time.Now()
	return in, nil
}

// shareOrAppend returns src itself when dst is empty, else dst and src in
// one new list. A namespace's lists are then shared by every node's Input
// that reads one namespace, not copied into each: a pool of 50 nodes
// holding 2,000 pods of one namespace held 100,000 Pod structs (121 MB)
// before the drain began. src is clipped, so that a later append copies
// instead of writing into it; the lists are read, never written.
func shareOrAppend[T any](dst, src []T) []T {
	if len(dst) == 0 {
		return slices.Clip(src)
	}
	return append(dst, src...)
}

// namespace returns the pods, PDBs and ReplicaSet owners of namespace,
// listing them on first use.
func (r *clusterReads) namespace(ctx context.Context, client kubernetes.Interface, namespace string) (*namespaceReads, error) {
	if ns, ok := r.namespaces[namespace]; ok {
		return ns, nil
	}
	pods, err := r.namespacePods(ctx, client, namespace)
	if err != nil {
		return nil, err
	}
	pdbs, err := client.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing PodDisruptionBudgets in namespace %s: %w", namespace, err)
	}
	ns := &namespaceReads{pods: pods.Items, pdbs: pdbs.Items, owners: map[string]OwnerRef{}}
	// A ReplicaSet we may not read stands for its Deployment.
	if rss, err := client.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range rss.Items {
			rs := &rss.Items[i]
			if ref := metav1.GetControllerOf(rs); ref != nil {
				ns.owners[namespace+"/"+rs.Name] = OwnerRef{Kind: ref.Kind, Name: ref.Name}
			}
		}
	}
	ns.deployments = readDeployments(ctx, client, namespace)
	ns.rollouts, ns.rolloutsUnknown = readRollouts(ctx, r.dynamic, namespace, ns.owners)
	if r.namespaces == nil {
		r.namespaces = map[string]*namespaceReads{}
	}
	r.namespaces[namespace] = ns
	return ns, nil
}

// nodePods lists the pods bound to node matching podSelector: from the
// pool's list of every pod when there is one, else one list of their own.
func (r *clusterReads) nodePods(ctx context.Context, client kubernetes.Interface, node, podSelector string) (*corev1.PodList, error) {
	if r.pods == nil {
		pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
			LabelSelector: podSelector,
			FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String(),
		})
		if err != nil {
			return nil, fmt.Errorf("listing pods on node %s: %w", node, err)
		}
		return pods, nil
	}
	selector, err := labels.Parse(podSelector)
	if err != nil {
		return nil, fmt.Errorf("listing pods on node %s: %w", node, err)
	}
	out := &corev1.PodList{ListMeta: r.pods.ListMeta}
	for i := range r.pods.Items {
		if p := &r.pods.Items[i]; p.Spec.NodeName == node && selector.Matches(labels.Set(p.Labels)) {
			out.Items = append(out.Items, *p)
		}
	}
	return out, nil
}

// namespacePods lists the pods of namespace: from the pool's list of
// every pod when there is one, else one list of their own.
func (r *clusterReads) namespacePods(ctx context.Context, client kubernetes.Interface, namespace string) (*corev1.PodList, error) {
	if r.pods == nil {
		pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing pods in namespace %s: %w", namespace, err)
		}
		return pods, nil
	}
	out := &corev1.PodList{ListMeta: r.pods.ListMeta}
	for i := range r.pods.Items {
		if r.pods.Items[i].Namespace == namespace {
			out.Items = append(out.Items, r.pods.Items[i])
		}
	}
	return out, nil
}

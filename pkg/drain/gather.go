package drain

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// Gather lists what Preflight reads for node: all nodes, the pods bound to
// node matching podSelector (a label selector, "" for all), every pod and
// PodDisruptionBudget of their namespaces, and the Deployments controlling
// their ReplicaSets, and the caller's permissions for what the drain does
// (SelfSubjectAccessReviews). It returns the API error (Forbidden, unreachable) of the
// first list that fails; a ReplicaSet it may not read is shown as itself.
func Gather(ctx context.Context, client kubernetes.Interface, node *corev1.Node, podSelector string, flags Flags) (PreflightInput, error) {
	in := PreflightInput{Node: node, Flags: flags, RSOwners: map[string]Owner{}}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return in, fmt.Errorf("listing nodes: %w", err)
	}
	in.Nodes = nodes.Items
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		LabelSelector: podSelector,
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node.Name).String(),
	})
	if err != nil {
		return in, fmt.Errorf("listing pods on node %s: %w", node.Name, err)
	}
	in.Pods = pods.Items
	seen := map[string]bool{}
	for i := range in.Pods {
		p := &in.Pods[i]
		if seen[p.Namespace] {
			continue
		}
		seen[p.Namespace] = true
		if err := gatherNamespace(ctx, client, p.Namespace, &in); err != nil {
			return in, err
		}
	}
	namespaces := make([]string, 0, len(seen))
	for ns := range seen {
		namespaces = append(namespaces, ns)
	}
	in.Access = reviewAccess(ctx, client, node.Name, namespaces, flags)
	in.Now = time.Now()
	return in, nil
}

// gatherNamespace adds the pods, PDBs and ReplicaSet owners of namespace.
func gatherNamespace(ctx context.Context, client kubernetes.Interface, namespace string, in *PreflightInput) error {
	pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing pods in namespace %s: %w", namespace, err)
	}
	in.NamespacePods = append(in.NamespacePods, pods.Items...)
	pdbs, err := client.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing PodDisruptionBudgets in namespace %s: %w", namespace, err)
	}
	in.PDBs = append(in.PDBs, pdbs.Items...)
	rss, err := client.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil // the ReplicaSet stands for its Deployment
	}
	for i := range rss.Items {
		rs := &rss.Items[i]
		if ref := metav1.GetControllerOf(rs); ref != nil {
			in.RSOwners[namespace+"/"+rs.Name] = Owner{Kind: ref.Kind, Name: ref.Name}
		}
	}
	return nil
}

package listwatch

import "k8s.io/apimachinery/pkg/fields"

// Key says which objects a Stream watches, so that a Hub can share it
// between the readers of one process: a resource, cluster-wide, and the
// field selector that picks its objects. Two Streams with one Key watch
// the same objects; the zero Key is a Stream no Hub shares.
type Key struct {
	// Resource is the resource's plural name ("pods").
	Resource string
	// FieldSelector picks the objects, "" for all of them.
	FieldSelector string
}

// PodsOnNode is the Key of a watch of the pods bound to node, by the
// field selector spec.nodeName the kubelet itself watches its pods with.
func PodsOnNode(node string) Key {
	return Key{Resource: "pods", FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()}
}

// Budgets is the Key of a watch of every PodDisruptionBudget.
var Budgets = Key{Resource: "poddisruptionbudgets"}

package nodewatch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// drainerReadTimeout bounds each read of a drainer's own object, so that
// an API server slow to answer for a CRD never holds the watch.
const drainerReadTimeout = 5 * time.Second

// drainerSeen is what nodeSeen last saw of a node: its drainer's marks
// (marksOf), the drainer line noted for them and whether it was
// schedulable.
type drainerSeen struct {
	marks, line string
	schedulable bool
	// own is the deadline of the drain of this process when it cordoned
	// the node (Config.CordonedHere), kept while no drainer's mark
	// appears; "" otherwise.
	own string
}

// nodeSeen names the drainer of a followed node when its marks change
// (a note, printed as it comes), from the node's latest version. A node
// is updated often while it drains (conditions, images, volumes); the
// drainer's objects are read again only when the marks changed, so the
// reads are a few per node, not one per update.
func (f *follower) nodeSeen(ctx context.Context, node *corev1.Node) {
	if !slices.Contains(f.w.Nodes, node.Name) {
		return
	}
	marks := marksOf(node)
	seen, ok := f.drainers[node.Name]
	if ok && seen.marks == marks {
		return
	}
	d, ok := whoDrains(node, f.drainerFacts(ctx, node))
	own := ""
	if ok && d.Name == "" {
		own = f.ownCordon(node.Name, seen)
		d.ThisDrain = own != ""
		d.Deadline = cmp.Or(own, d.Deadline)
	}
	line := ""
	if ok {
		line = d.String()
	}
	prev := seen.line
	f.drainers[node.Name] = drainerSeen{marks: marks, line: line, schedulable: !node.Spec.Unschedulable, own: own}
	if line == prev {
		return
	}
	if ok {
		f.w.Drainers = append(f.w.Drainers, d)
		f.note(line)
	}
}

// ownCordon returns the deadline of the drain of this process when it
// cordoned node, "" when it did not or cannot say: asked once, when the
// node the watch saw schedulable is cordoned with no drainer's mark,
// then kept while no mark appears (the node controller's unschedulable
// taint that follows the cordon is no drainer's).
func (f *follower) ownCordon(node string, seen drainerSeen) string {
	switch {
	case seen.own != "":
		return seen.own
	case !seen.schedulable || f.cfg.CordonedHere == nil:
		return ""
	}
	if deadline, ok := f.cfg.CordonedHere(node); ok {
		return cmp.Or(deadline, "unknown")
	}
	return ""
}

// marksOf is what whoDrains reads of a node: whether it is cordoned, its
// taints and its annotations.
func marksOf(node *corev1.Node) string {
	b, _ := json.Marshal(struct {
		Unschedulable bool
		Taints        []corev1.Taint
		Annotations   map[string]string
	}{node.Spec.Unschedulable, node.Spec.Taints, node.Annotations})
	return string(b)
}

// drainerFacts gathers what the marks on node point to, each read only
// when the node carries its mark: kured's lock (kured cordons the node it
// holds the lock for before draining it), the Cluster API Machine and the
// Karpenter NodeClaim.
func (f *follower) drainerFacts(ctx context.Context, node *corev1.Node) drainerFacts {
	facts := drainerFacts{
		machineDeadline: func(n *corev1.Node) string {
			return f.machineDeadline(ctx, n.Annotations[capiNamespaceAnnotation], n.Annotations[capiMachineAnnotation])
		},
		nodeClaimDeadline: func(n *corev1.Node) string { return f.nodeClaimDeadline(ctx, n.Name) },
	}
	if node.Spec.Unschedulable {
		lock, ds := f.kuredLock(ctx)
		facts.kuredHolder, facts.kuredDaemonSet = kuredLockHolder(lock, node.Name), ds
	}
	return facts
}

// kuredLock returns the lock annotation of kured's DaemonSet and the
// DaemonSet ("namespace/name"), "" when there is none or it cannot be
// read. The DaemonSet's name and namespace are kured's --ds-name and
// --ds-namespace (kube-system/kured by default; a Helm release names its
// own), so it is found by the lock annotation itself: one list of the
// DaemonSets, then a GET of the one found. With none found the list is
// made again at most every kuredRelist.
func (f *follower) kuredLock(ctx context.Context) (lock, daemonSet string) {
	ctx, cancel := context.WithTimeout(ctx, drainerReadTimeout)
	defer cancel()
	k := &f.kured
	if k.namespace != "" {
		ds, err := f.cfg.Client.AppsV1().DaemonSets(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
		if err == nil {
			return ds.Annotations[kuredLockAnnotation], k.namespace + "/" + k.name
		}
		*k = kuredLocator{}
	}
	if !k.listed.IsZero() && time.Since(k.listed) < kuredRelist {
		return "", ""
	}
	k.listed = time.Now()
	list, err := f.cfg.Client.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		// May not list every namespace: kured's default place.
		ds, err := f.cfg.Client.AppsV1().DaemonSets("kube-system").Get(ctx, "kured", metav1.GetOptions{})
		if err != nil {
			return "", ""
		}
		return ds.Annotations[kuredLockAnnotation], "kube-system/kured"
	}
	for _, ds := range list.Items {
		if lock, ok := ds.Annotations[kuredLockAnnotation]; ok {
			k.namespace, k.name = ds.Namespace, ds.Name
			return lock, ds.Namespace + "/" + ds.Name
		}
	}
	return "", ""
}

// kuredRelist is how long a list of the DaemonSets that found no kured
// lock stands before the next.
const kuredRelist = 30 * time.Second

// kuredLocator is where kuredLock found kured's DaemonSet, and when it
// last listed them.
type kuredLocator struct {
	namespace, name string
	listed          time.Time
}

// getJSON reads path from the API server into v; an error when it cannot
// (no such CRD, RBAC, a timeout).
func (f *follower) getJSON(ctx context.Context, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, drainerReadTimeout)
	defer cancel()
	raw, err := f.cfg.Client.Discovery().RESTClient().Get().AbsPath(path).DoRaw(ctx)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// machineDeadline returns, for a Cluster API Machine being deleted, its
// nodeDrainTimeout (v1beta1 spec.nodeDrainTimeout; unset: no limit), or
// "" when the Machine cannot be read or is not being deleted: then no
// drain by Cluster API is claimed.
func (f *follower) machineDeadline(ctx context.Context, namespace, name string) string {
	var m struct {
		Metadata struct {
			DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
		} `json:"metadata"`
		Spec struct {
			NodeDrainTimeout string `json:"nodeDrainTimeout"`
		} `json:"spec"`
	}
	if namespace == "" || f.getJSON(ctx, "/apis/cluster.x-k8s.io/v1beta1/namespaces/"+namespace+"/machines/"+name, &m) != nil ||
		m.Metadata.DeletionTimestamp == nil {
		return ""
	}
	if m.Spec.NodeDrainTimeout == "" {
		return "none: the Machine sets no nodeDrainTimeout, so Cluster API waits for the drain without limit"
	}
	return "the Machine's nodeDrainTimeout " + m.Spec.NodeDrainTimeout + " from its deletion at " +
		m.Metadata.DeletionTimestamp.UTC().Format(time.TimeOnly) + "Z"
}

// nodeClaimDeadline returns the terminationGracePeriod of the Karpenter
// NodeClaim of node (status.nodeName), or why it is unknown.
func (f *follower) nodeClaimDeadline(ctx context.Context, node string) string {
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				TerminationGracePeriod string `json:"terminationGracePeriod"`
			} `json:"spec"`
			Status struct {
				NodeName string `json:"nodeName"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := f.getJSON(ctx, "/apis/karpenter.sh/v1/nodeclaims", &list); err != nil {
		return fmt.Sprintf("unknown: Karpenter's NodeClaims cannot be read (%v)", err)
	}
	for _, c := range list.Items {
		if c.Status.NodeName != node {
			continue
		}
		if c.Spec.TerminationGracePeriod == "" {
			return "none: NodeClaim " + c.Metadata.Name + " sets no terminationGracePeriod, so Karpenter waits for the drain without limit"
		}
		return "NodeClaim " + c.Metadata.Name + "'s terminationGracePeriod " + c.Spec.TerminationGracePeriod +
			": Karpenter deletes the pods left by then, budgets or not"
	}
	return "unknown: no NodeClaim names this node"
}

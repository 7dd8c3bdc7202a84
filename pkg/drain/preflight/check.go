package preflight

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Input is everything the preflight reads, gathered beforehand (Gather) or
// built by hand in tests.
type Input struct {
	// Node is the node to drain.
	Node *corev1.Node
	// Refused, when set, is the API server's 403 to Gather's own reads:
	// the report is then a refusing BlockerForbidden quoting it, so that
	// the drain stops before anything changes (readsRefused).
	Refused error
	// Nodes are all nodes of the cluster, to tell whether replacements have
	// room elsewhere.
	Nodes []corev1.Node
	// Pods are the pods bound to Node (after --pod-selector).
	Pods []corev1.Pod
	// PodsResourceVersion is the resourceVersion of the list Pods come
	// from: a watch of the node's pods from it misses no change since.
	PodsResourceVersion string
	// NamespacePods are all pods of the namespaces of Pods, to count the
	// replicas of each workload.
	NamespacePods []corev1.Pod
	// PDBs are the PodDisruptionBudgets of those namespaces, with status.
	PDBs []policyv1.PodDisruptionBudget
	// RSOwners maps "namespace/replicaSet" to the Deployment controlling it.
	RSOwners map[string]OwnerRef
	// Deployments are those of the namespaces, by "namespace/name"; one
	// missing could not be read.
	Deployments map[string]*appsv1.Deployment
	// Rollouts are the Argo Rollouts (argoproj.io/v1alpha1) controlling
	// ReplicaSets of those namespaces, by "namespace/name".
	Rollouts map[string]*unstructured.Unstructured
	// RolloutsUnknown says, by namespace, why its Rollouts could not be
	// read (the resource not served, Forbidden).
	RolloutsUnknown map[string]string
	// Flags are the user's drain flags.
	Flags Flags
	// RetryDelay is the first wait after a 429, used for the estimate.
	RetryDelay time.Duration
	// PodWarnings, when set, returns termination problems of a pod that will
	// drop requests when it is evicted (the audit's error-level findings),
	// one message each.
	PodWarnings func(pod *corev1.Pod) []string
	// Access are the caller's permissions for the requests the drain
	// makes, as the API server answered; nil when they were not checked.
	Access []AccessCheck
	// Now is the time the input was read, to date ages and deadlines; the
	// zero value means time.Now().
	Now time.Time
}

// now returns in.Now, or the current time when it is unset.
func (in Input) now() time.Time {
	if in.Now.IsZero() {
		return time.Now()
	}
	return in.Now
}

// Check says what a drain of in.Node would do and what would block it,
// without calling the API server. The rules it encodes are those of the
// eviction subresource (pkg/registry/core/pod/storage/eviction.go) and of
// the filters of k8s.io/kubectl/pkg/drain.
func Check(in Input) *Report {
	r := &Report{
		timeout:         in.Flags.Timeout,
		Node:            in.Node.Name,
		AlreadyCordoned: in.Node.Spec.Unschedulable,
		Evict:           []OwnerGroup{},
		Skipped:         []PodEntry{},
		Terminating:     []TerminatingPod{},
		Access:          append([]AccessCheck{}, in.Access...),
		ServerDryRun:    []ServerAnswer{},
		Budgets:         []BudgetEntry{},
		Blockers:        []Issue{},
		Warnings:        []Issue{},
		WaitCompleted:   []string{},
	}
	if in.Refused != nil {
		r.Blockers = append(r.Blockers, readsRefused(in.Refused))
	}
	var evict []*corev1.Pod
	for i := range in.Pods {
		pod := &in.Pods[i]
		c := classify(pod, in.Flags)
		switch c.action {
		case actionEvict:
			if v := drainLabelValue(pod, in.Flags); v != "" {
				labelled(r, pod, v, in.Flags)
				continue
			}
			if pod.DeletionTimestamp != nil {
				terminating(r, pod, in)
				continue
			}
			evict = append(evict, pod)
		case actionSkip:
			r.Skipped = append(r.Skipped, podInfo(pod, in.Flags, c.reason))
		case actionRefuse:
			r.Skipped = append(r.Skipped, podInfo(pod, in.Flags, c.reason))
			r.Blockers = append(r.Blockers, Issue{Kind: c.kind, Pod: podKey(pod), Refuses: true,
				Message: c.reason + "; the drain does not start: waiting will not help"})
		}
	}
	r.Evict = groupByOwner(evict, in)
	r.Surge, r.Waves = surgePlans(r.Evict, in), waves(evict, in.Flags)
	cordonTolerators(r, evict, in)
	maxWait := budgets(r, evict, in)
	r.Warnings = append(append([]Issue{}, replicaWarnings(notSurged(r.Evict, r.Surge), r.Budgets, in)...), r.Warnings...)
	if in.Flags.DisableEviction {
		r.Warnings = append(r.Warnings, Issue{Kind: WarningDisableEviction,
			Message: "--disable-eviction deletes pods without checking PodDisruptionBudgets: the budgets below may be broken"})
	}
	accessIssues(r, in.Access)
	if in.PodWarnings != nil {
		for _, pod := range evict {
			for _, msg := range in.PodWarnings(pod) {
				r.Warnings = append(r.Warnings, Issue{Kind: WarningTerminationAudit, Pod: podKey(pod),
					Message: "loses requests when evicted: " + msg})
			}
		}
	}
	r.estimate(wavesGrace(evict, in.Flags)+int64(maxWait.Seconds()), longestRemainingGrace(r.Terminating))
	return r
}

// estimate sets EstimatedSeconds to the longest of seconds, none when r
// has a blocker, and the verdict.
func (r *Report) estimate(seconds ...int64) {
	r.EstimatedSeconds = nil
	if len(r.Blockers) == 0 {
		// A blocked drain has no duration to estimate: it waits until
		// --timeout or Ctrl-C.
		r.EstimatedSeconds = ptr.To(max(slices.Max(seconds), 0))
	}
	r.Verdict = verdict(r)
}

func podInfo(pod *corev1.Pod, f Flags, note string) PodEntry {
	return PodEntry{Namespace: pod.Namespace, Name: pod.Name, Phase: string(pod.Status.Phase),
		Ready: isReady(pod), GracePeriodSeconds: gracePeriod(pod, f), Note: note}
}

// gracePeriod returns the grace period in seconds the drain gives pod:
// --grace-period when >= 0, else the pod's terminationGracePeriodSeconds
// (the API default, 30, when unset).
func gracePeriod(pod *corev1.Pod, f Flags) int64 {
	if f.GracePeriodSeconds >= 0 {
		return int64(f.GracePeriodSeconds)
	}
	return podspec.GracePeriod(pod.Spec)
}

func longestGrace(pods []*corev1.Pod, f Flags) int64 {
	var m int64
	for _, p := range pods {
		m = max(m, gracePeriod(p, f))
	}
	return m
}

// groupByOwner groups the evicted pods by namespace and workload, sorted,
// with each workload's replica count taken from in.NamespacePods.
func groupByOwner(pods []*corev1.Pod, in Input) []OwnerGroup {
	idx := map[string]int{}
	groups := []OwnerGroup{}
	for _, pod := range pods {
		o := ownerOf(pod, in.RSOwners)
		key := pod.Namespace + "/" + o.String()
		if o.Kind == "" {
			key += "/" + pod.Name
		}
		i, ok := idx[key]
		if !ok {
			i = len(groups)
			idx[key] = i
			groups = append(groups, OwnerGroup{Namespace: pod.Namespace, Owner: o, Replicas: replicas(pod.Namespace, o, in)})
		}
		groups[i].Pods = append(groups[i].Pods, podInfo(pod, in.Flags, ""))
	}
	sort.Slice(groups, func(a, b int) bool {
		return cmp.Or(strings.Compare(groups[a].Namespace, groups[b].Namespace), strings.Compare(groups[a].Owner.String(), groups[b].Owner.String())) < 0
	})
	for _, g := range groups {
		sort.Slice(g.Pods, func(a, b int) bool { return g.Pods[a].Name < g.Pods[b].Name })
	}
	return groups
}

// replicas counts the live (not terminating, not finished) pods of owner in
// namespace; 0 for a bare pod.
func replicas(namespace string, owner OwnerRef, in Input) int {
	if owner.Kind == "" {
		return 0
	}
	n := 0
	for i := range in.NamespacePods {
		if p := &in.NamespacePods[i]; p.Namespace == namespace && live(p) && ownerOf(p, in.RSOwners) == owner {
			n++
		}
	}
	return n
}

// replicaWarnings warns of workloads that go down during the drain: a single
// replica, or every replica on this node with no PDB to pace their
// eviction; each says so where no other node may take the replacements.
func replicaWarnings(groups []OwnerGroup, budgets []BudgetEntry, in Input) []Issue {
	guarded := map[string]bool{}
	for _, b := range budgets {
		for _, p := range b.PodsOnNode {
			guarded[b.Namespace+"/"+p] = true
		}
	}
	var out []Issue
	for _, g := range groups {
		if !g.Owner.replicated() || g.Owner.Kind == "Job" {
			continue
		}
		if g.Replicas > 1 && guarded[g.Namespace+"/"+g.Pods[0].Name] {
			continue
		}
		name := inspect.ObjectRef{Kind: g.Owner.Kind, Namespace: g.Namespace, Name: g.Owner.Name}.String()
		stuck := ""
		if !roomForNewPods(workloadPods(g.Namespace, g.Owner, in), in) {
			stuck = "; " + noRoomElsewhere
		}
		switch {
		case g.Replicas == 1:
			out = append(out, Issue{Kind: WarningSingleReplica, Message: fmt.Sprintf(
				"%s has a single replica: it serves nothing until its replacement is Ready elsewhere%s", name, stuck)})
		case g.Replicas > 1 && len(g.Pods) >= g.Replicas:
			out = append(out, Issue{Kind: WarningAllReplicas, Message: fmt.Sprintf(
				"all %d replicas of %s are on this node: without a PodDisruptionBudget they all go at once%s", g.Replicas, name, stuck)})
		}
	}
	return out
}

// terminating records pod, already terminating: the drain does not evict
// it again but waits until it is gone.
func terminating(r *Report, pod *corev1.Pod, in Input) {
	at := slices.IndexFunc(in.Nodes, func(n corev1.Node) bool { return n.Name == pod.Spec.NodeName })
	t := terminatingPod(pod, in.now(), at >= 0 && nodeReady(&in.Nodes[at]))
	r.Terminating = append(r.Terminating, t)
	if i := terminatingIssue(t); i != nil && i.Kind == BlockerTerminatingStuck {
		r.Blockers = append(r.Blockers, *i)
	} else if i != nil {
		r.Warnings = append(r.Warnings, *i)
	}
}

// longestRemainingGrace returns the longest time in seconds until the
// grace deadline of a terminating pod, 0 when all have passed.
func longestRemainingGrace(pods []TerminatingPod) int64 {
	var m int64
	for _, t := range pods {
		m = max(m, -t.SecondsPastDeadline)
	}
	return m
}

// verdict returns the preflight's last line.
func verdict(r *Report) string {
	if len(r.Blockers) == 0 {
		waited := ""
		if n := len(r.Terminating); n > 0 {
			waited = fmt.Sprintf(" (and %d already terminating waited for)", n)
		}
		if n := deletedPastBudget(r); n > 0 {
			waited += fmt.Sprintf(", %d of them deleted past their budget if it still refuses them (--delete-after)", n)
		}
		return fmt.Sprintf("would succeed: %d pod(s) evicted from node %s%s in about %s",
			r.PodCount(), r.Node, waited, time.Duration(*r.EstimatedSeconds)*time.Second)
	}
	if r.Refused() {
		return "would not start: " + blockerList(r)
	}
	return "would block: " + blockerList(r) + "; " + blockedWait("the node", "", r.timeout)
}

// blockedWait says how long a drain that the preflight finds blocked
// waits: it cordons what it drains (the node, or every node of a pool)
// and retries until --timeout, as kubectl drain does; a pool's --timeout
// holds for each node (each, " on each node").
func blockedWait(what, each string, timeout time.Duration) string {
	if timeout == 0 {
		return "a drain cordons " + what + " and retries until Ctrl-C (no --timeout)"
	}
	return "a drain cordons " + what + " and retries for --timeout " + timeout.String() + each
}

// blockerList names r's blockers, each with its PDB or pod:
// "pdb-allows-none (PDB shop/db), needs-force (pod shop/x)". The pool's
// verdict names each node's with it, under its own "would block".
func blockerList(r *Report) string {
	var why []string
	for _, b := range r.Blockers {
		s := string(b.Kind)
		switch {
		case b.PDB != "":
			s += " (PDB " + b.PDB + ")"
		case b.Pod != "":
			s += " (pod " + b.Pod + ")"
		}
		why = append(why, s)
	}
	return strings.Join(why, ", ")
}

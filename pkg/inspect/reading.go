package inspect

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// summarizeReading fills the counts of what the audit read in its own way:
// generic workloads and objects not audited, so that nothing is skipped
// silently.
func summarizeReading(inv *Inventory, s *Summary) {
	for _, w := range inv.Workloads {
		if w.Generic {
			s.Generic++
		}
	}
	s.NotAudited = []NotAudited{}
	for k, n := range inv.NotAudited {
		k.Count = n
		s.NotAudited = append(s.NotAudited, k)
	}
	sort.Slice(s.NotAudited, func(i, j int) bool {
		a, b := s.NotAudited[i], s.NotAudited[j]
		return a.Reason < b.Reason || a.Reason == b.Reason && a.Message < b.Message
	})
}

// AddGenericWorkload files an object of a kind the checks do not read (Argo
// Rollout, OpenKruise CloneSet, ReplicationController) through its
// pod template, with a note that says so. replicas is its spec.replicas,
// nil when it has none. apiVersion and kind are the object's own.
func (inv *Inventory) AddGenericWorkload(apiVersion, kind, namespace, name string, annotations map[string]string,
	tpl corev1.PodTemplateSpec, replicas *int32, src *Source) *Workload {
	inv.Objects++
	w := &Workload{
		Object:      ObjectRef{Kind: kind, Namespace: namespaceOf(namespace), Name: name},
		Source:      src,
		Annotations: annotations,
		Template:    tpl,
		Replicas:    replicas,
		Generic:     true,
		Group:       schema.FromAPIVersionAndKind(apiVersion, kind).Group,
	}
	inv.Workloads = append(inv.Workloads, w)
	inv.Notes = append(inv.Notes, fmt.Sprintf("%s %s (%s) is not a kind the audit reads: audited as a generic workload through spec.template%s",
		kind, w.Object.Namespace+"/"+name, apiVersion, replicasNote(replicas)))
	return w
}

func replicasNote(r *int32) string {
	if r == nil {
		return "; it has no spec.replicas, so replica checks do not apply"
	}
	return fmt.Sprintf(" and spec.replicas (%d)", *r)
}

package load

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// protobuf returns a copy of cfg whose typed clients send and ask for
// built-in types in protobuf, accepting JSON where the server answers with
// it, as kubectl does: decoding protobuf costs a fraction of JSON.
// client-go's generated clients prefer protobuf on their own only while the
// configuration names no content type; this holds when it names one.
func protobuf(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return c
}

// trim drops what no check reads but is often the bulk of an object read
// from a cluster: metadata.managedFields (server-side apply's field owners)
// and kubectl's last-applied-configuration annotation (a copy of the whole
// object as last applied).
func trim(obj runtime.Object) {
	o, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	o.SetManagedFields(nil)
	delete(o.GetAnnotations(), corev1.LastAppliedConfigAnnotation)
}

// podLabels reads every pod in scope as metadata only
// (PartialObjectMetadata: labels and owner references, no spec or status,
// in protobuf) and records its labels, all the checks read of a pod that a
// workload owns. Bare pods (no controller) matching sel are workloads when
// withBarePods, so their spec is needed: their namespaces are returned for
// barePods, and their labels recorded with them there; none when the list
// failed part way (the pods input is then unavailable, and auditing the
// bare pods of its first pages only would depend on where it broke).
func (l *lister) podLabels(sel labels.Selector, withBarePods bool) (map[string]bool, error) {
	bare := map[string]bool{} // namespaces of bare pods to audit
	err := l.pages("", listOf(l, l.md.Resource(podsResource).Namespace(l.ns).List), func(item runtime.Object) {
		p, ok := item.(*metav1.PartialObjectMetadata)
		if !ok {
			return
		}
		if withBarePods && metav1.GetControllerOf(p) == nil && sel.Matches(labels.Set(p.Labels)) {
			bare[p.Namespace] = true
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.inv.AddPodLabels(p.Namespace, p.Labels, metav1.GetControllerOf(p))
	})
	if err != nil {
		return nil, err
	}
	return bare, nil
}

// barePods reads the bare pods of podLabels' namespaces in full with a
// second paged list, narrowed to sel and to their namespace when they
// share one, and files them as workloads.
func (l *lister) barePods(sel labels.Selector, bare map[string]bool) error {
	if len(bare) == 0 {
		return nil
	}
	ns := l.ns
	if len(bare) == 1 {
		for n := range bare {
			ns = n
		}
	}
	return l.pages(sel.String(), listOf(l, l.cs.CoreV1().Pods(ns).List), func(item runtime.Object) {
		if p, ok := item.(*corev1.Pod); ok && bare[p.Namespace] && metav1.GetControllerOf(p) == nil {
			l.add(p)
		}
	})
}

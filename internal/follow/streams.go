package follow

import (
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// Stream is the stream name of resource in namespace ("" for every
// namespace) read through c, filtered server-side by a label and a field
// selector ("" for none).
func Stream(name string, c cache.Getter, resource, namespace, labelSel, fieldSel string) *listwatch.Stream {
	return &listwatch.Stream{Name: name, LW: cache.NewFilteredListWatchFromClient(c, resource, namespace, func(o *metav1.ListOptions) {
		o.LabelSelector, o.FieldSelector = labelSel, fieldSel
	})}
}

// Events is the stream name of the Events in namespace that fieldSel
// picks, with their managedFields: they date the Events' writes
// (timeline.Recorder).
func Events(name string, c kubernetes.Interface, namespace, fieldSel string) *listwatch.Stream {
	s := Stream(name, c.CoreV1().RESTClient(), "events", namespace, "", fieldSel)
	s.KeepManagedFields = true
	return s
}

// Slices is the stream name of the EndpointSlices of services in
// namespace (kubernetes.io/service-name), of every one there when all
// (the Services could not be read); nil when there are none to watch.
func Slices(name string, c kubernetes.Interface, namespace string, services []string, all bool) *listwatch.Stream {
	if len(services) == 0 && !all {
		return nil
	}
	sel := ""
	if !all {
		sel = discoveryv1.LabelServiceName + " in (" + strings.Join(services, ",") + ")"
	}
	return Stream(name, c.DiscoveryV1().RESTClient(), "endpointslices", namespace, sel, "")
}

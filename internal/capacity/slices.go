package capacity

import (
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SlicesOf returns the EndpointSlices among the objects of a List (a
// listwatch.Notice's), for Tracker.List.
func SlicesOf(list []runtime.Object) []*discoveryv1.EndpointSlice {
	out := make([]*discoveryv1.EndpointSlice, 0, len(list))
	for _, o := range list {
		if s, ok := o.(*discoveryv1.EndpointSlice); ok {
			out = append(out, s)
		}
	}
	return out
}

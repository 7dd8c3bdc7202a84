package load

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// scaleSubresources answers the inventory's ScaleQuestions from API
// discovery, through the getter's discovery client (kubectl's, cached on
// disk): a kind has a scale subresource when its group version lists
// "RESOURCE/scale" beside the kind's resource. A group version discovery
// cannot read (no longer served, forbidden) leaves its kinds unanswered,
// and no check reports on them. No request is made when no budget needs
// an answer.
func scaleSubresources(getter resource.RESTClientGetter, inv *inspect.Inventory) {
	questions := inv.ScaleQuestions()
	if len(questions) == 0 {
		return
	}
	dc, err := getter.ToDiscoveryClient()
	if err != nil {
		return
	}
	for _, q := range questions {
		list, err := dc.ServerResourcesForGroupVersion(q.GroupVersion().String())
		if err != nil {
			continue
		}
		if has, found := hasScale(list, q.Kind); found {
			inv.SetScale(q.Group, q.Kind, has)
		}
	}
}

// hasScale reports whether the resource of kind in list has a /scale
// subresource; found is false when list has no resource of that kind.
func hasScale(list *metav1.APIResourceList, kind string) (has, found bool) {
	names := map[string]bool{}
	resource := ""
	for _, r := range list.APIResources {
		names[r.Name] = true
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			resource = r.Name
		}
	}
	if resource == "" {
		return false, false
	}
	return names[resource+"/scale"], true
}

package ingress

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingressspec"
)

// Route is an Ingress that sends traffic to one of a pod's Services.
type Route struct {
	Ingress, Service string
	// Class is the Ingress's class (spec.ingressClassName, the legacy
	// kubernetes.io/ingress.class annotation, or the cluster's default
	// IngressClass), "" when it has none.
	Class string
	// Controller is the class's spec.controller (traefik.io/ingress-controller,
	// k8s.io/ingress-nginx, ...), "" when the IngressClass cannot be read.
	Controller string
}

// Routes lists the Ingresses of namespace whose default backend or path
// backends name one of services, with their class and its controller. It
// returns the error of listing Ingresses (a missing IngressClass, or one
// that cannot be read, leaves Controller empty).
func Routes(ctx context.Context, c kubernetes.Interface, namespace string, services []string) ([]Route, error) {
	ings, err := c.NetworkingV1().Ingresses(namespace).List(ctx, metav1.ListOptions{})
	if err != nil || len(ings.Items) == 0 {
		return nil, err
	}
	var classes map[string]string
	defaultClass := ""
	if list, err := c.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{}); err == nil {
		classes, defaultClass = ingressspec.Classes(list.Items)
	}
	want := map[string]bool{}
	for _, s := range services {
		want[s] = true
	}
	var out []Route
	for _, ing := range ings.Items {
		class := ingressspec.Class(&ing, defaultClass)
		for _, svc := range ingressspec.BackendServices(&ing) {
			if want[svc] {
				out = append(out, Route{Ingress: ing.Name, Service: svc, Class: class, Controller: classes[class]})
			}
		}
	}
	return out, nil
}

// Discover lists the Ingresses of namespace that route to services
// (Routes) and says which they are and how the watch reads their
// controller: at api, or, where api is "", that when the controller
// stopped sending the pod requests is not read and the window is judged
// against the EndpointSlice and --propagation (estimated true: a fact the
// verdict keeps). "" when none routes to them or they cannot be listed
// (the line is left out; docs/rbac.md).
func Discover(ctx context.Context, c kubernetes.Interface, namespace string, services []string, api string) (msg string, estimated bool) {
	routes, err := Routes(ctx, c, namespace, services)
	if err != nil || len(routes) == 0 {
		return "", false
	}
	names := make([]string, 0, len(routes))
	for _, r := range routes {
		names = append(names, r.text())
	}
	if api != "" {
		return "routed to by " + strings.Join(names, "; ") + "; reading its controller's API at " + api, false
	}
	return "routed to by " + strings.Join(names, "; ") + ": when its controller stopped sending the pod requests is not read (--ingress-api names Traefik's API), so the window is judged against the EndpointSlice and --propagation, an estimate", true
}

// text names r with its Service, class and controller.
func (r Route) text() string {
	s := "Ingress " + r.Ingress + " (Service " + r.Service
	if r.Class != "" {
		s += ", class " + r.Class
	}
	if r.Controller != "" {
		s += ", controller " + r.Controller
	}
	return s + ")"
}

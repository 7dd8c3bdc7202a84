package ingress

import (
	"context"
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
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

// Index is the Ingresses of a namespace (every namespace for "") and the
// cluster's IngressClasses, read once: a node watch meets a new Service
// with every workload, and finds its routes here, not from the API.
type Index struct {
	ingresses    []networkingv1.Ingress
	classes      map[string]string
	defaultClass string
}

// Read lists the Ingresses of namespace ("" for all) and the
// IngressClasses. It returns the error of listing Ingresses (IngressClasses
// that cannot be read leave each Route's Controller empty).
func Read(ctx context.Context, c kubernetes.Interface, namespace string) (*Index, error) {
	ings, err := c.NetworkingV1().Ingresses(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	x := &Index{ingresses: ings.Items}
	if len(ings.Items) > 0 {
		if list, err := c.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{}); err == nil {
			x.classes, x.defaultClass = ingressspec.Classes(list.Items)
		}
	}
	return x, nil
}

// Routes lists the Ingresses of namespace whose default backend or path
// backends name one of services, with their class and its controller.
func (x *Index) Routes(namespace string, services []string) []Route {
	var out []Route
	for _, ing := range x.ingresses {
		if ing.Namespace != namespace {
			continue
		}
		class := ingressspec.Class(&ing, x.defaultClass)
		for _, svc := range ingressspec.BackendServices(&ing) {
			if slices.Contains(services, svc) {
				out = append(out, Route{Ingress: ing.Name, Service: svc, Class: class, Controller: x.classes[class]})
			}
		}
	}
	return out
}

// Discover reads the Ingresses of namespace (Read) and says which route
// to services and how the watch reads their controller (Index.Discover);
// "" when none does or they cannot be listed (the line is left out;
// docs/rbac.md).
func Discover(ctx context.Context, c kubernetes.Interface, namespace string, services []string, api string) (msg string, estimated bool) {
	x, err := Read(ctx, c, namespace)
	if err != nil {
		return "", false
	}
	return x.Discover(namespace, services, api)
}

// Discover says which Ingresses of namespace route to services and how
// the watch reads their controller: at api, or, where api is "", that
// when the controller stopped sending the pod requests is not read and
// the window is judged against the EndpointSlice and --propagation
// (estimated true: a fact the verdict keeps), with the controller's own
// time where it is known (ingressspec.KnownController). "" when none
// routes to them.
func (x *Index) Discover(namespace string, services []string, api string) (msg string, estimated bool) {
	routes := x.Routes(namespace, services)
	if len(routes) == 0 {
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

// text names r with its Service, class and controller, and the
// controller's own time where it is known.
func (r Route) text() string {
	s := "Ingress " + r.Ingress + " (Service " + r.Service
	if r.Class != "" {
		s += ", class " + r.Class
	}
	if r.Controller != "" {
		s += ", controller " + r.Controller
		if c, ok := ingressspec.KnownController(r.Controller); ok {
			s += fmt.Sprintf(": %s may send new requests up to %d s after the endpoint turns not ready, docs/ingress.md", c.Name, c.Seconds)
		}
	}
	return s + ")"
}

package ingress

import (
	"context"

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

// defaultClassAnnotation marks the cluster's default IngressClass
// (networking/v1 IngressClass docs).
const defaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"

// Routes lists the Ingresses of namespace whose default backend or path
// backends name one of services, with their class and its controller. It
// returns the error of listing Ingresses (a missing IngressClass, or one
// that cannot be read, leaves Controller empty).
func Routes(ctx context.Context, c kubernetes.Interface, namespace string, services []string) ([]Route, error) {
	ings, err := c.NetworkingV1().Ingresses(namespace).List(ctx, metav1.ListOptions{})
	if err != nil || len(ings.Items) == 0 {
		return nil, err
	}
	classes := map[string]string{}
	defaultClass := ""
	if list, err := c.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{}); err == nil {
		for _, ic := range list.Items {
			classes[ic.Name] = ic.Spec.Controller
			if ic.Annotations[defaultClassAnnotation] == "true" {
				defaultClass = ic.Name
			}
		}
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

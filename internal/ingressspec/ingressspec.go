// Package ingressspec reads what an Ingress's spec says of where it sends
// traffic: the Services its backends name and its class (networking/v1
// Ingress and IngressClass docs).
package ingressspec

import networkingv1 "k8s.io/api/networking/v1"

// LegacyClassAnnotation names an Ingress's class where
// spec.ingressClassName does not.
const LegacyClassAnnotation = "kubernetes.io/ingress.class"

// Class is ing's class: spec.ingressClassName, else the legacy
// annotation, else defaultClass (the cluster's default IngressClass).
func Class(ing *networkingv1.Ingress, defaultClass string) string {
	switch {
	case ing.Spec.IngressClassName != nil:
		return *ing.Spec.IngressClassName
	case ing.Annotations[LegacyClassAnnotation] != "":
		return ing.Annotations[LegacyClassAnnotation]
	}
	return defaultClass
}

// BackendServices names the Services of ing's backends, its default
// backend and its rules' paths, each once.
func BackendServices(ing *networkingv1.Ingress) []string {
	seen := map[string]bool{}
	var out []string
	add := func(b *networkingv1.IngressBackend) {
		if b != nil && b.Service != nil && !seen[b.Service.Name] {
			seen[b.Service.Name] = true
			out = append(out, b.Service.Name)
		}
	}
	add(ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP != nil {
			for i := range r.HTTP.Paths {
				add(&r.HTTP.Paths[i].Backend)
			}
		}
	}
	return out
}

// DefaultClassAnnotation marks the cluster's default IngressClass
// (networking/v1 IngressClass docs).
const DefaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"

// Classes maps each IngressClass's name to its spec.controller (the
// controller that serves Ingresses of the class) and names the cluster's
// default class, "" when none is marked.
func Classes(list []networkingv1.IngressClass) (controllers map[string]string, defaultClass string) {
	controllers = map[string]string{}
	for _, ic := range list {
		controllers[ic.Name] = ic.Spec.Controller
		if ic.Annotations[DefaultClassAnnotation] == "true" {
			defaultClass = ic.Name
		}
	}
	return controllers, defaultClass
}

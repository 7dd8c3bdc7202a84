package ingressspec

import "strings"

// Controller is what an Ingress controller's own code says of how long it
// keeps sending new requests to a pod after the pod's endpoint turns not
// ready in its Service's EndpointSlice. docs/ingress.md gives each
// controller's sources.
type Controller struct {
	// Name is the controller as its project names it.
	Name string
	// Seconds is the longest time, at the controller's default settings,
	// from the EndpointSlice change to the proxy sending the pod no new
	// request (seconds, rounded up).
	Seconds int64
	// How says what the time is made of and the setting that changes it.
	How string
}

// controllers are keyed by IngressClass spec.controller. A controller
// whose time has no bound in its code or docs (the AWS and GKE load
// balancers, whose draining the audit's lb checks read) or that is not
// named by spec.controller (Contour matches the class's name) is left out.
var controllers = map[string]Controller{
	"traefik.io/ingress-controller": {Name: "Traefik", Seconds: 2,
		How: "providersThrottleDuration, 2 s by default; it fences a terminating endpoint from v3.6.22, older v3 releases send to the pod until its address leaves the EndpointSlice"},
	"k8s.io/ingress-nginx": {Name: "ingress-nginx", Seconds: 5,
		How: "--sync-rate-limit, 0.3 syncs a second by default, then up to 1 s for the Lua balancer to take the new backends"},
	"haproxy.org/ingress-controller": {Name: "HAProxy Kubernetes Ingress Controller", Seconds: 5,
		How: "--sync-period, 5 s by default"},
	"haproxy-ingress.github.io/controller": {Name: "HAProxy Ingress", Seconds: 2,
		How: "--rate-limit-update, 0.5 updates a second by default"},
	"ingress-controllers.konghq.com/kong": {Name: "Kong Ingress Controller", Seconds: 3,
		How: "--proxy-sync-seconds, 3 s by default"},
	"istio.io/ingress-controller": {Name: "Istio ingress gateway", Seconds: 10,
		How: "PILOT_DEBOUNCE_MAX, 10 s by default while changes keep coming (100 ms when quiet)"},
}

// KnownController returns what is known of the controller named by an
// IngressClass's spec.controller. A controller string with a class
// suffix ("haproxy.org/ingress-controller/haproxy", as --ingress.class
// or --controller-class makes it) is the controller's own.
func KnownController(controller string) (Controller, bool) {
	if c, ok := controllers[controller]; ok {
		return c, true
	}
	if i := strings.LastIndex(controller, "/"); i > 0 && strings.Count(controller, "/") > 1 {
		c, ok := controllers[controller[:i]]
		return c, ok
	}
	return Controller{}, false
}

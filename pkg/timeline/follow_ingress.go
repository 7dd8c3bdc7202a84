package timeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
)

// routes says which Ingresses send traffic to the pod's Services, and,
// when the controller's API is not read, that its timing is estimated.
func (f *follower) routes(ctx context.Context, services []string) {
	rs, err := ingress.Routes(ctx, f.cfg.Client, f.cfg.Namespace, services)
	if err != nil || len(rs) == 0 {
		return
	}
	var names []string
	for _, r := range rs {
		names = append(names, routeText(r))
	}
	if f.cfg.IngressAPI != "" {
		f.say("routed to by " + strings.Join(names, "; ") + "; reading its controller's API at " + f.cfg.IngressAPI)
		return
	}
	f.note(fmt.Sprintf("routed to by %s: when its controller stopped sending the pod requests is not read (--ingress-api names Traefik's API), so the window is judged against the EndpointSlice and --propagation, an estimate", strings.Join(names, "; ")))
}

// routeText names an Ingress route with its class and controller.
func routeText(r ingress.Route) string {
	s := "Ingress " + r.Ingress + " (Service " + r.Service
	if r.Class != "" {
		s += ", class " + r.Class
	}
	if r.Controller != "" {
		s += ", controller " + r.Controller
	}
	return s + ")"
}

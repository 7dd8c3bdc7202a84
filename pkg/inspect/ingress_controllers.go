package inspect

import (
	"fmt"
	"slices"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingressspec"
)

// ingressDelay is the longest time (seconds) a known Ingress controller
// routing to one of w's Services may send a pod new requests after the
// pod's endpoint turns not ready (ingressspec.KnownController), and why
// in words; 0 and "" when no known controller routes to w.
func (s *scope) ingressDelay(w *Workload) (int64, string) {
	x := s.index()
	var secs int64
	why := ""
	for _, svc := range s.servicesFor(w) {
		for _, i := range x.ingresses[w.Object.Namespace] {
			ing := &s.inv.Ingresses[i]
			if !routesTo(*ing, svc.Name) {
				continue
			}
			class := ingressspec.Class(ing, x.defaultClass)
			c, ok := ingressspec.KnownController(x.controllers[class])
			if ok && c.Seconds > secs {
				secs = c.Seconds
				why = fmt.Sprintf("Ingress %s (class %s) is served by %s, which may send the pod new requests up to %d s after its endpoint turns not ready (%s)",
					ing.Name, class, c.Name, c.Seconds, c.How)
			}
		}
	}
	return secs, why
}

// preStopFloor is the preStop delay (seconds) w's pods need: the floor
// (--prestop-floor), or an Ingress controller's time where it is longer,
// with why ("" for the floor).
func (s *scope) preStopFloor(w *Workload) (int64, string) {
	if secs, why := s.ingressDelay(w); secs > s.opts.PreStopFloorSeconds {
		return secs, why
	}
	return s.opts.PreStopFloorSeconds, ""
}

// ingressNotes names, once each, the Ingress controllers the audited
// Ingresses use and whether the audit knows their timing, so that a
// preStop judged against a controller's time says where it comes from.
func ingressNotes(inv *Inventory) []string {
	if len(inv.Ingresses) == 0 {
		return nil
	}
	if inv.IngressClassesUnread != "" {
		return []string{"IngressClasses could not be read (" + inv.IngressClassesUnread + "): which controller serves each Ingress is unknown, so preStop delays are judged against --prestop-floor alone"}
	}
	classes, def := ingressspec.Classes(inv.IngressClasses)
	var out []string
	for _, ing := range inv.Ingresses {
		class := ingressspec.Class(&ing, def)
		controller, ok := classes[class]
		if !ok {
			continue // no IngressClass: the lb checks read cloud classes by annotation
		}
		note := fmt.Sprintf("IngressClass %s (controller %s): not a controller whose timing the audit knows; its pods' preStop delays are judged against --prestop-floor", class, controller)
		if c, known := ingressspec.KnownController(controller); known {
			note = fmt.Sprintf("IngressClass %s is served by %s: it may send a pod new requests up to %d s after its endpoint turns not ready (%s); prestop-too-short uses that time where it is longer than --prestop-floor (docs/ingress.md)",
				class, c.Name, c.Seconds, c.How)
		}
		if !slices.Contains(out, note) {
			out = append(out, note)
		}
	}
	return out
}

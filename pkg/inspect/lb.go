package inspect

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/prestop"
)

// Load balancer annotations read by lb-deregistration-exceeds-grace.
// Sources: AWS Load Balancer Controller docs (ingress and service
// annotations, target group attributes) and GKE BackendConfig
// connectionDraining.
const (
	albTargetGroupAttributes = "alb.ingress.kubernetes.io/target-group-attributes"
	nlbTargetGroupAttributes = "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes"
	awsLBType                = "service.beta.kubernetes.io/aws-load-balancer-type"
	gkeBackendConfig         = "cloud.google.com/backend-config"
	gkeBackendConfigBeta     = "beta.cloud.google.com/backend-config"
	// awsDefaultDeregistrationDelay is the AWS target group default
	// (deregistration_delay.timeout_seconds), in seconds.
	awsDefaultDeregistrationDelay = 300
)

var lbDeregistrationExceedsGrace = register(&Check{
	ID:       "lb-deregistration-exceeds-grace",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "the load balancer's deregistration delay (AWS target group, GKE connection draining) outlasts the grace period, or the preStop delay",
	Needs:    []Input{InputServices, InputIngresses, InputBackendConfigs},
	run: func(s *scope, c *Check) []Finding {
		return eachWorkload(s, func(s *scope, w *Workload) []Finding { return checkLBDeregistration(s, c, w) })
	},
	Explanation: Doc{
		Why:    "Cloud load balancers keep a deregistered target draining for a delay (AWS target group deregistration_delay.timeout_seconds, default 300 s; GKE BackendConfig connectionDraining.drainingTimeoutSec). If the pod is killed before that, connections the LB still considers live are cut; if preStop is shorter than it, new requests can still arrive after SIGTERM.",
		Fix:    "Make the deregistration delay shorter than the grace period (target-group-attributes: deregistration_delay.timeout_seconds=N), and the preStop delay long enough to cover the LB's deregistration.",
		Source: "AWS Load Balancer Controller annotations (alb.ingress.kubernetes.io/target-group-attributes, service.beta.kubernetes.io/aws-load-balancer-target-group-attributes); GKE BackendConfig connectionDraining",
	},
})

// lbDelay is a load balancer's deregistration delay (seconds) and where it
// comes from.
type lbDelay struct {
	seconds int64
	from    string
}

func checkLBDeregistration(s *scope, c *Check, w *Workload) []Finding {
	svcs := s.servicesFor(w)
	if len(svcs) == 0 {
		return nil
	}
	var delay *lbDelay
	for _, svc := range svcs {
		for _, d := range s.lbDelays(svc) {
			if delay == nil || d.seconds > delay.seconds {
				d := d
				delay = &d
			}
		}
	}
	if delay == nil || delay.seconds == 0 {
		return nil
	}
	grace := gracePeriod(w.Template.Spec)
	if delay.seconds > grace {
		msg := fmt.Sprintf("%s deregistration delay is %d s but the grace period is %d s: the load balancer still drains connections to pods already killed",
			delay.from, delay.seconds, grace)
		fix := fmt.Sprintf("lower deregistration_delay.timeout_seconds to at most %d (e.g. %s: deregistration_delay.timeout_seconds=%d) or raise terminationGracePeriodSeconds above %d",
			grace, nlbTargetGroupAttributes, grace, delay.seconds)
		return []Finding{c.finding(w, "", msg, fix)}
	}
	var out []Finding
	for _, ctr := range servingContainers(w, svcs) {
		d, known, _ := prestop.Duration(ctr)
		if !known || d >= delay.seconds {
			continue
		}
		f := c.finding(w, ctr.Name,
			fmt.Sprintf("preStop delay %d s is shorter than the %s deregistration delay of %d s: new connections may still arrive after SIGTERM",
				d, delay.from, delay.seconds),
			fmt.Sprintf("raise the preStop sleep towards %d s (within the grace period of %d s), or lower the deregistration delay", delay.seconds, grace))
		f.Severity = SeverityInfo
		out = append(out, f)
	}
	return out
}

// lbDelays returns the deregistration delays that apply to svc: from its
// own NLB/ALB annotations, from ALB Ingresses routing to it, and from a GKE
// BackendConfig it names.
func (s *scope) lbDelays(svc corev1.Service) []lbDelay {
	var out []lbDelay
	if v, ok := targetGroupDelay(svc.Annotations[nlbTargetGroupAttributes]); ok {
		out = append(out, lbDelay{v, "AWS NLB target group"})
	} else if isAWSLBCService(svc) {
		out = append(out, lbDelay{awsDefaultDeregistrationDelay, "AWS NLB target group (default)"})
	}
	for _, ing := range s.inv.Ingresses {
		if namespaceOf(ing.Namespace) != namespaceOf(svc.Namespace) || !isALB(ing) || !routesTo(ing, svc.Name) {
			continue
		}
		if v, ok := targetGroupDelay(ing.Annotations[albTargetGroupAttributes]); ok {
			out = append(out, lbDelay{v, "AWS ALB target group (Ingress " + ing.Name + ")"})
		} else if v, ok := targetGroupDelay(svc.Annotations[albTargetGroupAttributes]); ok {
			out = append(out, lbDelay{v, "AWS ALB target group (Service annotation)"})
		} else {
			out = append(out, lbDelay{awsDefaultDeregistrationDelay, "AWS ALB target group (default, Ingress " + ing.Name + ")"})
		}
	}
	for _, name := range backendConfigNames(svc) {
		if v, ok := s.inv.BackendConfigs[namespaceOf(svc.Namespace)+"/"+name]; ok {
			out = append(out, lbDelay{v, "GKE BackendConfig " + name + " connection draining"})
		}
	}
	return out
}

// targetGroupDelay reads deregistration_delay.timeout_seconds from an AWS
// target-group-attributes annotation ("k=v,k=v").
func targetGroupDelay(attrs string) (int64, bool) {
	for _, kv := range strings.Split(attrs, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && strings.TrimSpace(k) == "deregistration_delay.timeout_seconds" {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

func isAWSLBCService(svc corev1.Service) bool {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return false
	}
	if c := svc.Spec.LoadBalancerClass; c != nil && *c == "service.k8s.aws/nlb" {
		return true
	}
	t := svc.Annotations[awsLBType]
	return t == "external" || t == "nlb-ip"
}

func isALB(ing networkingv1.Ingress) bool {
	if c := ing.Spec.IngressClassName; c != nil && *c == "alb" {
		return true
	}
	return ing.Annotations["kubernetes.io/ingress.class"] == "alb"
}

func routesTo(ing networkingv1.Ingress, service string) bool {
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil && b.Service.Name == service {
		return true
	}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil && p.Backend.Service.Name == service {
				return true
			}
		}
	}
	return false
}

// backendConfigNames returns the BackendConfig names a Service's
// annotation refers to: {"default": "x"} and {"ports": {"80": "y"}}.
func backendConfigNames(svc corev1.Service) []string {
	raw := svc.Annotations[gkeBackendConfig]
	if raw == "" {
		raw = svc.Annotations[gkeBackendConfigBeta]
	}
	if raw == "" {
		return nil
	}
	var ref struct {
		Default string            `json:"default"`
		Ports   map[string]string `json:"ports"`
	}
	if json.Unmarshal([]byte(raw), &ref) != nil {
		return nil
	}
	var out []string
	if ref.Default != "" {
		out = append(out, ref.Default)
	}
	for _, n := range ref.Ports {
		out = append(out, n)
	}
	return out
}

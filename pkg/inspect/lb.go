package inspect

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

var lbDeregistrationExceedsGrace = register(&Check{
	ID:       "lb-deregistration-exceeds-grace",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "the load balancer's deregistration delay (AWS target group, GKE connection draining) outlasts the grace period, or the preStop delay",
	Needs:    []Input{InputServices, InputIngresses, InputBackendConfigs, InputTargetGroupBindings},
	run:      perWorkload(checkLBDeregistration),
	Explanation: Explanation{
		Why: "Cloud load balancers keep a deregistered target draining for a delay: an AWS target group's deregistration_delay.timeout_seconds (AWS default 300 s when nothing sets it), a Classic ELB's connection draining timeout, GKE's BackendConfig connectionDraining.drainingTimeoutSec. " +
			"With pod targets (AWS ip mode, GKE NEGs) a terminating pod is deregistered and the load balancer keeps its connections that long: a pod killed sooner cuts them, and a preStop shorter than the delay lets requests arrive after SIGTERM. " +
			"With node targets (instance mode) the delay applies when a node leaves the group in a drain or scale-down. docs/audit.md lists every load balancer form the audit recognises and where each rule comes from.",
		Fix:    "Make the deregistration delay shorter than the grace period (target-group-attributes: deregistration_delay.timeout_seconds=N, or the BackendConfig's drainingTimeoutSec), and the preStop delay long enough to cover the load balancer's deregistration.",
		Source: "AWS Elastic Load Balancing target group attributes; AWS Load Balancer Controller Service and Ingress annotations and TargetGroupBinding; Kubernetes AWS cloud provider Service annotations; GKE BackendConfig connectionDraining",
	},
})

// awsDefaultDeregistrationDelay is the deregistration delay (seconds) of an
// AWS target group whose deregistration_delay.timeout_seconds attribute is
// not set (Elastic Load Balancing target group attributes).
const awsDefaultDeregistrationDelay = 300

// Target types: what a load balancer sends traffic to.
const (
	targetsPods  = "ip"       // pod IPs (AWS ip mode, GKE NEG)
	targetsNodes = "instance" // nodes, then kube-proxy (AWS instance mode, GKE instance groups)
)

// lbDelay is one load balancer's draining time for a Service's targets.
type lbDelay struct {
	// seconds the load balancer keeps a deregistered target's connections.
	seconds int64
	// from names the load balancer and where the number comes from.
	from string
	// targets is targetsPods, targetsNodes or "" when the spec does not say.
	targets string
	// fix is the setting that changes the delay.
	fix string
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
	grace := podspec.GracePeriod(w.Template.Spec)
	if delay.seconds > grace {
		msg := fmt.Sprintf("%s deregistration delay is %d s but the grace period is %d s: %s",
			delay.from, delay.seconds, grace, delayConsequence(delay.targets))
		fix := fmt.Sprintf("lower the delay to at most %d s (%s) or raise terminationGracePeriodSeconds above %d",
			grace, delay.fix, delay.seconds)
		return []Finding{c.finding(w, "", msg, fix)}
	}
	var out []Finding
	for _, ctr := range servingContainers(w, svcs) {
		d, known, _ := hookDuration(w, ctr)
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

// delayConsequence says what a delay longer than the grace period does,
// by what the load balancer's targets are.
func delayConsequence(targets string) string {
	switch targets {
	case targetsPods:
		return "pods are the targets, and the load balancer keeps a deregistered pod's connections that long while the pod is killed when its grace period ends"
	case targetsNodes:
		return "nodes are the targets, so when a node leaves the target group (a drain, a scale-down) the load balancer keeps its connections that long while the pods behind them are killed when their grace period ends"
	}
	return "if pods are the targets, the load balancer keeps a deregistered pod's connections that long while the pod is killed when its grace period ends"
}

// lbDelays returns the draining times of every load balancer form that
// sends traffic to svc (AWS forms in lb_aws.go, GKE forms in lb_gke.go).
func (s *scope) lbDelays(svc corev1.Service) []lbDelay {
	return slices.Concat(serviceLBDelays(svc), s.albDelays(svc), s.targetGroupBindingDelays(svc), s.gkeDelays(svc))
}

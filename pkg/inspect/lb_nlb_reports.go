package inspect

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// nlbReportedLagSeconds is how long, by public reports, an AWS NLB keeps
// sending new connections to an IP target after its deregistration
// starts (about two minutes); AWS does not document it.
const nlbReportedLagSeconds = 120

var nlbIPLateDeregistration = register(&Check{
	ID:       "nlb-ip-late-deregistration",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityInfo,
	Summary:  "behind an AWS NLB with IP targets: public reports agree it keeps sending new connections about two minutes after deregistration starts, longer than the preStop delay (resting on reports, not on AWS documentation)",
	Needs:    []Input{InputServices},
	run: perServingContainer(func(s *scope, c *Check, w *Workload, _ corev1.Service, ctr corev1.Container) []Finding {
		lb := s.nlbWithIPTargets(w)
		if lb == "" {
			return nil
		}
		d, known, _ := hookDuration(w, ctr)
		if known && d >= nlbReportedLagSeconds {
			return nil
		}
		msg := fmt.Sprintf("behind %s: public reports (kubernetes-sigs/aws-load-balancer-controller#2366, #3270; AWS does not document it) agree that an NLB keeps sending new connections to an IP target for about %d s after its deregistration starts, longer than this preStop delay (%s): requests may reach the pod after it stops",
			lb, nlbReportedLagSeconds, delayText(d, known))
		fix := fmt.Sprintf("measure it: kubectl graceful watch pod NAME -n %s --propagation %ds while a pod is deleted; if the reports hold for you, a preStop delay of about %d s and a grace period above it",
			w.Object.Namespace, nlbReportedLagSeconds, nlbReportedLagSeconds)
		return []Finding{c.finding(w, ctr.Name, msg, fix)}
	}),
	Explanation: Explanation{
		Why:    "This rule rests on public reports, not on the provider's documentation: several users of the AWS Load Balancer Controller measured that a Network Load Balancer with IP targets keeps routing new connections to a target for about two minutes after its deregistration starts, whatever deregistration_delay.timeout_seconds says, so a pod whose preStop delay is shorter gets requests after it stops. The audit says so as info, for each serving container behind such an NLB whose preStop delay is below 120 s.",
		Fix:    "Measure it on your load balancer (kubectl graceful watch pod NAME --propagation 120s while a pod is deleted); where it holds, lengthen the preStop delay to about 120 s and the grace period above it, or put a proxy in front that drains in step with the endpoints.",
		Source: "public reports, not AWS documentation: kubernetes-sigs/aws-load-balancer-controller#2366 and #3270 (NLB IP targets receive new connections about two minutes after deregistration starts)",
	},
})

// nlbWithIPTargets names the AWS NLB with IP (pod) targets in front of w,
// "" when there is none.
func (s *scope) nlbWithIPTargets(w *Workload) string {
	for _, svc := range s.servicesFor(w) {
		for _, d := range serviceLBDelays(svc) {
			if strings.HasPrefix(d.from, "AWS NLB") && d.targets == targetsPods {
				return "Service " + svc.Name + "'s " + d.from
			}
		}
	}
	return ""
}

func delayText(d int64, known bool) string {
	if !known {
		return "unknown"
	}
	return fmt.Sprintf("%d s", d)
}

package inspect

import (
	"fmt"
	"slices"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// DrainerCap is a limit a drainer puts on a pod's termination
// (Options.DrainerCaps): cluster-autoscaler's --max-graceful-termination-sec
// (600 s by default), a Karpenter NodePool's terminationGracePeriod, a spot
// instance's 2-minute notice.
type DrainerCap struct {
	Seconds int64
	// Name says whose cap it is and where it was read ("--drainer-cap").
	Name string
}

var shutdownExceedsDrainerCap = register(&Check{
	ID:       "shutdown-exceeds-drainer-cap",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "preStop plus the app's shutdown plus the load balancer's deregistration delay, or the grace period itself, is longer than a drainer's cap: that drainer cuts the shutdown short",
	run:      perWorkload(checkDrainerCaps),
	Explanation: Explanation{
		Why: "Drainers bound a pod's termination whatever its grace period says: cluster-autoscaler gives each pod at most --max-graceful-termination-sec (default 600 s) when it scales a node down, " +
			"Karpenter deletes what is left when a NodePool's terminationGracePeriod ends, and a spot instance is reclaimed 2 minutes after its notice. " +
			"A workload whose preStop, app shutdown and load balancer deregistration together take longer loses the rest: SIGKILL, or the instance gone. " +
			"A grace period longer than the cap is named too, even where no shutdown time is declared: in such a drain the pod ends at the cap, so the grace period promises nothing past it (cluster-autoscaler deletes the pod with the cap as its grace period).",
		Fix: "Shorten the preStop delay or the load balancer's deregistration delay to fit the cap, or raise the drainer's cap. " +
			"Live, the audit reads the caps the cluster shows: cluster-autoscaler's --max-graceful-termination-sec from its Deployment's container arguments (600 s when the flag is absent), " +
			"each Karpenter NodePool's spec.template.spec.terminationGracePeriod (karpenter.sh/v1, where served), and the spot notice of spot nodes (by their labels: 120 s on AWS, 30 s on Compute Engine and Azure); give any other cap, or one for files, with --drainer-cap.",
		Source: "cluster-autoscaler --max-graceful-termination-sec, default 600 (github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md); Karpenter NodePool spec.template.spec.terminationGracePeriod (kubernetes-sigs/karpenter#916); AWS EC2 spot instance interruption notices, 2 minutes (docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html); GKE Spot and preemptible VMs, 30 s from the preemption notice by default (cloud.google.com/kubernetes-engine/docs/concepts/spot-vms); Azure Scheduled Events, Preempt, 30 s (learn.microsoft.com/azure/virtual-machines/linux/scheduled-events)",
	},
})

// checkDrainerCaps compares w's shutdown time, its longest container's
// preStop plus the app's shutdown plus the longest deregistration delay of
// its Services' load balancers, with each cap given.
func checkDrainerCaps(s *scope, c *Check, w *Workload) []Finding {
	app, where, _ := s.shutdownSeconds(w)
	var pre int64
	for _, ctr := range podspec.TerminatingContainers(w.Template.Spec) {
		if d, known, _ := hookDuration(w, ctr); known && d > pre {
			pre = d
		}
	}
	var lb int64
	lbFrom := ""
	for _, svc := range s.servicesFor(w) {
		for _, d := range s.lbDelays(svc) {
			if d.seconds > lb {
				lb, lbFrom = d.seconds, " ("+d.from+")"
			}
		}
	}
	total := pre + app + lb
	grace := podspec.GracePeriod(w.Template.Spec)
	var out []Finding
	for _, cp := range slices.Concat(s.opts.DrainerCaps, s.inv.DrainerCaps) {
		switch {
		case total > cp.Seconds:
			msg := fmt.Sprintf("preStop %d s + app shutdown %d s (%s) + load balancer deregistration %d s%s = %d s, more than the %s cap of %d s: the last %d s are cut",
				pre, app, where, lb, lbFrom, total, cp.Name, cp.Seconds, total-cp.Seconds)
			out = append(out, c.finding(w, "", msg, ""))
		case grace > cp.Seconds:
			// kubernetes/kubernetes#94435: a grace period the cap
			// overrides promises nothing in such a drain, whatever the
			// app declares.
			msg := fmt.Sprintf("terminationGracePeriodSeconds is %d s, more than the %s cap of %d s: a drain by it ends the pod at %d s (SIGKILL, or the node gone), not at the grace period's end; a shutdown that needs more than %d s is cut there",
				grace, cp.Name, cp.Seconds, cp.Seconds, cp.Seconds)
			out = append(out, c.finding(w, "", msg, ""))
		}
	}
	return out
}

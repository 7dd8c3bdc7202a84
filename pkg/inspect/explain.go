package inspect

import (
	"fmt"
	"strings"
)

// Explain returns why the check matters, how to fix it and the Kubernetes
// source of the rule it encodes.
func (c *Check) Explain() Doc { return docs[c.ID] }

// ExplainText is the text of `kubectl graceful audit explain ID`.
func ExplainText(id string) (string, error) {
	c := Lookup(id)
	if c == nil {
		var ids []string
		for _, c := range catalogue {
			ids = append(ids, c.ID)
		}
		return "", fmt.Errorf("unknown check %q; checks: %s", id, strings.Join(ids, ", "))
	}
	d := c.Explain()
	return fmt.Sprintf("%s (default severity %s)\n\n%s\n\nWhy it matters:\n  %s\n\nHow to fix:\n  %s\n\nSource:\n  %s\n\nSuppress: annotate the object with %s: %q, or pass --skip %s\n",
		c.ID, c.Severity, c.Summary, d.Why, d.Fix, d.Source, SkipAnnotation, c.ID, c.ID), nil
}

const (
	srcKubelet    = "kubelet killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go); Pod Lifecycle docs, \"Termination of Pods\""
	srcEviction   = "eviction API (pkg/registry/core/pod/storage/eviction.go); disruption controller (pkg/controller/disruption); docs \"Specifying a Disruption Budget\""
	srcDeployment = "Deployment controller ResolveFenceposts (pkg/controller/deployment/util/deployment_util.go); docs \"Deployments: Rolling Update\""
	srcEndpoints  = "EndpointSlice controller and kube-proxy; docs \"Pod Lifecycle: Termination of Pods\" and \"EndpointSlices: conditions\""
)

var docs = map[string]Doc{
	"removed-api-version": {
		Why:    "API servers stop serving an apiVersion in the release that removes it; applying a manifest written in it fails (\"no matches for kind\"), so the workload is never updated or created. Removed: " + removedAPIList() + ". The fields the checks read kept their meaning, so the audit reads the object as the current version.",
		Fix:    "Change apiVersion to the replacement (apps/v1, batch/v1, policy/v1); apps/v1 requires spec.selector, and a policy/v1 PDB's empty selector selects every pod. kubectl convert can rewrite the manifest.",
		Source: "Kubernetes deprecated API migration guide (kubernetes.io/docs/reference/using-api/deprecation-guide)",
	},
	"prestop-exceeds-grace": {
		Why:    "The grace period starts before preStop runs and preStop time is counted inside it. When preStop lasts as long as the grace period, the app gets SIGTERM with no time left (or only kubelet's one-off 2 s extension) and is SIGKILLed with in-flight requests (exit 137).",
		Fix:    "Set terminationGracePeriodSeconds to the preStop delay plus the app's shutdown time plus a margin, or shorten the preStop delay.",
		Source: srcKubelet,
	},
	"shutdown-budget-exceeds-grace": {
		Why:    "After preStop, the app needs time to finish in-flight requests after SIGTERM. preStop + that time must fit in the grace period, or the tail of the shutdown is cut by SIGKILL. Declare the app's time with the annotation " + ShutdownSecondsAnnotation + " on the pod template or --shutdown-seconds; without them " + fmt.Sprint(AssumedShutdownSeconds) + " s is assumed for containers with a preStop hook.",
		Fix:    "Raise terminationGracePeriodSeconds to preStop + shutdown + a few seconds.",
		Source: srcKubelet,
	},
	"missing-prestop": {
		Why:    "When a pod is deleted, kubelet sends SIGTERM while the EndpointSlice controller, kube-proxy on every node, ingress controllers and cloud load balancers are still removing the pod's endpoint. Requests keep arriving at a process that is shutting down: a few 502s/connection resets on every deploy or drain.",
		Fix:    "Add a preStop delay so the endpoint is gone before SIGTERM: lifecycle.preStop.sleep.seconds: 10 (Kubernetes 1.30+) or exec [\"sleep\",\"10\"], and keep terminationGracePeriodSeconds above the delay plus the app's shutdown time.",
		Source: srcEndpoints,
	},
	"prestop-too-short": {
		Why:    "Endpoint removal has to reach kube-proxy on every node and any load balancer; a delay of a second or two is often shorter than that propagation in busy clusters.",
		Fix:    "Raise the preStop sleep to at least the floor (default 5 s, --prestop-floor), within the grace period.",
		Source: srcEndpoints,
	},
	"prestop-sleep-binary-missing": {
		Why:    "Distroless, scratch and static images have no shell and no sleep binary. An exec preStop calling them fails at once; the only trace is a FailedPreStopHook event, and the container gets SIGTERM without the intended delay.",
		Fix:    "Use the native lifecycle.preStop.sleep action (1.30+), ship a static sleep binary, or use a :debug variant that has busybox.",
		Source: "KEP-3960 (PodLifecycleSleepAction); kubelet lifecycle handlers (pkg/kubelet/lifecycle/handlers.go)",
	},
	"prefer-native-sleep": {
		Why:    "lifecycle.preStop.sleep needs no binary in the image and is not subject to exec failures. It is beta and on by default from 1.30 and GA in 1.34; sleep seconds: 0 is allowed from 1.33.",
		Fix:    "Replace exec [\"sleep\",\"N\"] with sleep: {seconds: N}.",
		Source: "KEP-3960 (PodLifecycleSleepAction), KEP-4818 (zero-second sleep)",
	},
	"grace-period-zero": {
		Why:    "terminationGracePeriodSeconds: 0 means immediate SIGKILL: no preStop hook, no SIGTERM handler, every in-flight request is cut.",
		Fix:    "Remove the field (default 30 s) or set it to the preStop delay plus the shutdown time.",
		Source: srcKubelet,
	},
	"grace-period-long": {
		Why:    "kubectl drain and rollouts wait for each pod's termination; a very long grace period stalls node maintenance and deploys that long per pod when the app does not exit by itself.",
		Fix:    "Lower terminationGracePeriodSeconds to what shutdown really needs, or raise the threshold with --max-grace if the long drain is intended.",
		Source: srcKubelet,
	},
	"lb-deregistration-exceeds-grace": {
		Why:    "Cloud load balancers keep a deregistered target draining for a delay (AWS target group deregistration_delay.timeout_seconds, default 300 s; GKE BackendConfig connectionDraining.drainingTimeoutSec). If the pod is killed before that, connections the LB still considers live are cut; if preStop is shorter than it, new requests can still arrive after SIGTERM.",
		Fix:    "Make the deregistration delay shorter than the grace period (target-group-attributes: deregistration_delay.timeout_seconds=N), and the preStop delay long enough to cover the LB's deregistration.",
		Source: "AWS Load Balancer Controller annotations (alb.ingress.kubernetes.io/target-group-attributes, service.beta.kubernetes.io/aws-load-balancer-target-group-attributes); GKE BackendConfig connectionDraining",
	},
	"missing-readiness-probe": {
		Why:    "Without a readinessProbe a pod is Ready as soon as its containers start, so it receives traffic before the app listens, and rollouts move on before new pods can serve.",
		Fix:    "Add a readinessProbe (httpGet on a health endpoint, tcpSocket or grpc) to each serving container.",
		Source: "Pod Lifecycle docs, \"Container probes\"; EndpointSlice ready condition",
	},
	"readiness-probe-port-unknown": {
		Why:    "kubelet resolves a named probe port in the container's own ports; an undeclared name makes the probe fail forever and the pod never turns Ready. Numbered ports are not flagged: declaring ports is informational and kubelet probes any number.",
		Fix:    "Point the probe at a declared port (by name or number) or declare the port in containers[].ports.",
		Source: "kubelet prober (pkg/kubelet/prober, findPortByName)",
	},
	"pdb-missing": {
		Why:    "Without a PodDisruptionBudget, a node drain or cluster upgrade may evict every replica at once (several can share a node, or nodes are drained in parallel).",
		Fix:    "Create a PDB with maxUnavailable: 1 (or a percentage) selecting the workload's pods.",
		Source: srcEviction,
	},
	"pdb-blocks-eviction": {
		Why:    "A PDB that can never allow a disruption (maxUnavailable 0 or 0%, minAvailable 100%, or an integer minAvailable >= replicas) makes every eviction return 429: kubectl drain and cluster upgrades hang until someone deletes the PDB. Percentages are scaled with rounding up, as the disruption controller does; with an HPA, its minReplicas is used.",
		Fix:    "Use maxUnavailable: 1 (or a percentage that resolves to at least 1), or raise replicas above minAvailable.",
		Source: srcEviction,
	},
	"pdb-no-disruptions-now": {
		Why:    "status.disruptionsAllowed is 0 right now (some pods are unhealthy or the budget is tight): any drain or eviction started now blocks with 429.",
		Fix:    "Find and fix the unready pods before draining, or scale up; check currentHealthy vs desiredHealthy.",
		Source: srcEviction,
	},
	"pdb-overlap": {
		Why:    "When more than one PDB matches a pod, the eviction API refuses to evict it with a 500 error (\"This pod has more than one PodDisruptionBudget\"): drains cannot proceed.",
		Fix:    "Make the PDBs' selectors disjoint so each pod matches exactly one.",
		Source: srcEviction,
	},
	"pdb-selects-nothing": {
		Why:    "A PDB whose selector matches no pod protects nothing: usually a typo in labels, or a budget left behind. A PDB without selector matches no pod (in policy/v1 an empty selector {} matches every pod in the namespace, which pdb-overlap then reports).",
		Fix:    "Set spec.selector to the pod template labels of the workload it should protect, or delete it.",
		Source: srcEviction,
	},
	"pdb-unhealthy-eviction-policy": {
		Why:    "With unhealthyPodEvictionPolicy IfHealthyBudget (the default), a Running but not Ready pod can be evicted only while the budget allows a disruption; a crash-looping pod can so block a drain forever. AlwaysAllow (beta 1.27, GA 1.31) lets such pods be evicted at once, which is what most services want: an unready pod serves no traffic anyway.",
		Fix:    "Set spec.unhealthyPodEvictionPolicy: AlwaysAllow unless the app needs unready pods protected (e.g. quorum-based stores).",
		Source: "KEP-3017 (PDB unhealthy pod eviction policy); " + srcEviction,
	},
	"single-replica": {
		Why:    "With one replica behind a Service, every rollout (with maxSurge 0), eviction, node drain or crash leaves the Service with no ready endpoint.",
		Fix:    "Run at least 2 replicas (or an HPA with minReplicas >= 2), with a PDB.",
		Source: srcDeployment,
	},
	"rollout-downtime": {
		Why:    "Strategy Recreate stops all pods before starting new ones; a RollingUpdate whose maxUnavailable resolves (rounding down) to all replicas may do the same. Either way the Service has no ready endpoint during the rollout.",
		Fix:    "Use RollingUpdate with maxUnavailable: 0 and maxSurge: 1 (or percentages that keep at least one pod).",
		Source: srcDeployment,
	},
	"min-ready-seconds-zero": {
		Why:    "With minReadySeconds 0 a rollout replaces the next old pod as soon as a new one first reports Ready, even if it crashes a second later; a short minReadySeconds lets new pods prove they stay Ready.",
		Fix:    "Set spec.minReadySeconds to a few seconds (e.g. 10).",
		Source: srcDeployment,
	},
}

package inspect

import (
	"cmp"
	"slices"
)

// Topic groups checks in the docs and in `audit explain`: what part of a
// termination they are about.
type Topic int

// Topics, in the order the docs list them.
const (
	// TopicTermination: grace period, preStop, SIGTERM and the load
	// balancers' draining, the timing of one pod's termination.
	TopicTermination Topic = iota
	// TopicProbes: readiness, which decides when a pod gets traffic.
	TopicProbes
	// TopicBudgets: PodDisruptionBudgets, which decide whether an eviction
	// is allowed.
	TopicBudgets
	// TopicRollouts: replicas and rollout strategy, how many pods serve
	// while others are replaced.
	TopicRollouts
	// TopicAPIVersions: manifests written for API versions a server no
	// longer serves.
	TopicAPIVersions
)

// String returns the topic's heading in docs/audit.md.
func (t Topic) String() string {
	switch t {
	case TopicTermination:
		return "Termination timing"
	case TopicProbes:
		return "Probes"
	case TopicBudgets:
		return "Disruption budgets"
	case TopicRollouts:
		return "Rollouts and replicas"
	case TopicAPIVersions:
		return "API versions"
	}
	return "Other"
}

// catalogue is every check, kept in documented order by register: by
// topic, then by severity (error first), then by ID.
var catalogue []*Check

// register adds c to the catalogue and returns it. Every check is declared
// as `var x = register(&Check{...})` in the file of its topic; nothing else
// lists checks (docs are generated from the catalogue, see doc.go).
func register(c *Check) *Check {
	catalogue = append(catalogue, c)
	slices.SortStableFunc(catalogue, func(a, b *Check) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(b.Severity.rank(), a.Severity.rank()), cmp.Compare(a.ID, b.ID))
	})
	return c
}

// Sources shared by several checks' explanations.
const (
	srcKubelet    = "kubelet killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go); Pod Lifecycle docs, \"Termination of Pods\""
	srcEviction   = "eviction API (pkg/registry/core/pod/storage/eviction.go); disruption controller (pkg/controller/disruption); docs \"Specifying a Disruption Budget\""
	srcDeployment = "Deployment controller ResolveFenceposts (pkg/controller/deployment/util/deployment_util.go); docs \"Deployments: Rolling Update\""
	srcEndpoints  = "EndpointSlice controller (pkg/controller/endpointslice) and kube-proxy (pkg/proxy); docs \"Pod Lifecycle: Termination of Pods\" and \"EndpointSlices: conditions\""
)

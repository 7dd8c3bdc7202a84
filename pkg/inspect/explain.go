package inspect

import (
	"fmt"
	"strings"
)

// Explain returns why the check matters, how to fix it and the Kubernetes
// source of the rule it encodes.
func (c *Check) Explain() Doc { return c.Explanation }

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

// Sources shared by several checks' explanations.
const (
	srcKubelet    = "kubelet killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go); Pod Lifecycle docs, \"Termination of Pods\""
	srcEviction   = "eviction API (pkg/registry/core/pod/storage/eviction.go); disruption controller (pkg/controller/disruption); docs \"Specifying a Disruption Budget\""
	srcDeployment = "Deployment controller ResolveFenceposts (pkg/controller/deployment/util/deployment_util.go); docs \"Deployments: Rolling Update\""
	srcEndpoints  = "EndpointSlice controller and kube-proxy; docs \"Pod Lifecycle: Termination of Pods\" and \"EndpointSlices: conditions\""
)

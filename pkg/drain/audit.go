package drain

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// AuditWarnings returns the audit's error-level termination findings of pod
// (inspect.PodFindings: preStop longer than the grace period, shutdown
// budget over it, grace period 0), one "check: message" each: such a pod
// drops requests when it is evicted.
func AuditWarnings(pod *corev1.Pod) []string {
	var out []string
	for _, f := range inspect.PodFindings(pod) {
		if f.Severity == inspect.SeverityError {
			out = append(out, f.Check+": "+f.Message)
		}
	}
	return out
}

package preflight

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// evictionWarningChecks are the warning-level checks of inspect.PodFindings
// the drain shows beside the error-level ones. The drain's termination
// warnings answer one question: does this pod lose requests at the moment
// it is evicted? sidecar-stops-first does: its proxy gets SIGTERM while the
// app still serves through it. The audit's other warning-level checks need
// what one pod does not hold (Services, PDBs, load balancers), and the
// preflight says the PDB and replica facts itself (single-replica,
// all-replicas-on-node, pdb-*), so showing them here would repeat it.
var evictionWarningChecks = map[string]bool{"sidecar-stops-first": true}

// AuditWarnings returns the audit's termination findings of pod that mean
// it loses requests when evicted, one "check: message" each: every
// error-level finding of inspect.PodFindings (preStop longer than the
// grace period, shutdown budget over it, grace period 0) and the
// warning-level checks of evictionWarningChecks (sidecar-stops-first).
func AuditWarnings(pod *corev1.Pod) []string {
	var out []string
	for _, f := range inspect.PodFindings(pod) {
		if f.Severity == inspect.SeverityError || evictionWarningChecks[f.Check] {
			out = append(out, f.Check+": "+f.Message)
		}
	}
	return out
}

package inspect

import "testing"

// TestNumbersNameTheirSource: a replica count that comes from an
// autoscaler names it.
func TestNumbersNameTheirSource(t *testing.T) {
	runCases(t, "pdb-missing", []checkCase{
		{"HPA raises the floor", objs(deploy("web", replicasOf(1)), hpa("web", 3)), 1, "3 replicas (minReplicas of HorizontalPodAutoscaler web) and no PodDisruptionBudget"},
		{"own replicas", objs(deploy("web", replicasOf(3))), 1, "3 replicas and no PodDisruptionBudget"},
	})
	runCases(t, "rollout-downtime", []checkCase{
		{"HPA floor", objs(deploy("web", replicasOf(5), strategy(rolling("0", "2"))), hpa("web", 2), web), 1, "resolves to 2 of 2 replicas (minReplicas of HorizontalPodAutoscaler web)"},
	})
}

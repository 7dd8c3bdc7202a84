package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// hpaFloorBudget is a Deployment of 3 replicas whose HorizontalPodAutoscaler
// may scale it down to 2, under a budget of minAvailable 2.
const hpaFloorBudget = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: example.com/app:1}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-hpa}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 6
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`

// pdb-blocks-eviction compared minAvailable 2 with the HPA's minReplicas 2,
// not the Deployment's 3 replicas: live and from the file, its message
// names the HorizontalPodAutoscaler and its minReplicas, and says the
// budget allows nothing at that floor rather than never.
func TestAuditPDBBlocksEvictionNamesHPAMinReplicas(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, []byte(hpaFloorBudget), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	if res := kubectl("apply", "-n", ns, "-f", file); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	waitForPods(t, env, ns)
	want := "minAvailable 2 requires 2 of 2 pods (Deployment/web: minReplicas 2 of HorizontalPodAutoscaler web-hpa) to stay up: " +
		"whenever the HorizontalPodAutoscaler holds it at minReplicas no eviction is allowed"
	for _, args := range [][]string{{"-n", ns}, {"-n", ns, "-f", file}} {
		r := auditJSON(t, kubectl, 2, args...)
		found := false
		for _, f := range r.Findings {
			if f.Check == "pdb-blocks-eviction" && f.Object.Name == "web" {
				found = true
				if !strings.Contains(f.Message, want) {
					t.Errorf("audit %v: message %q, want it to name the HPA's minReplicas: %q", args, f.Message, want)
				}
			}
		}
		if !found {
			t.Errorf("audit %v: no pdb-blocks-eviction on PodDisruptionBudget web: %v", args, keys(r))
		}
	}
}

package load

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

const scaledWeb = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 3
  selector: {matchLabels: {app: web}}
`

func auditFile(t *testing.T, text string) *inspect.Report {
	t.Helper()
	return auditFiles(t, write(t, t.TempDir(), "m.yaml", text))
}

func messages(r *inspect.Report, check string) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Check == check {
			out = append(out, f.Object.Kind+"/"+f.Object.Name+": "+f.Message)
		}
	}
	return out
}

// TestScaledObjectSetsTheFloor: stackrox/kube-linter#711, a KEDA
// ScaledObject's minReplicaCount is the floor, named as its source.
func TestScaledObjectSetsTheFloor(t *testing.T) {
	r := auditFile(t, scaledWeb+`---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: web-scaler, namespace: shop}
spec:
  scaleTargetRef: {name: web}
  minReplicaCount: 3
  maxReplicaCount: 10
`)
	got := strings.Join(messages(r, "pdb-blocks-eviction"), "\n")
	if !strings.Contains(got, "minReplicaCount 3 of ScaledObject web-scaler") || !strings.Contains(got, "whenever the ScaledObject holds it at minReplicaCount") {
		t.Errorf("pdb-blocks-eviction: %q", got)
	}
	if len(r.Summary.NotAudited) != 0 {
		t.Errorf("the ScaledObject is counted as not audited: %+v", r.Summary.NotAudited)
	}
	if m := messages(r, "single-replica"); len(m) != 0 {
		t.Errorf("single-replica at replicas 1 under a floor of 3: %v", m)
	}
}

// TestHPAAtZero: an HPA does not scale a workload at replicas 0; the
// report says so and reads the floor as 0.
func TestHPAAtZero(t *testing.T) {
	r := auditFile(t, strings.Replace(scaledWeb, "replicas: 1", "replicas: 0", 1)+`---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 3
  maxReplicas: 10
`)
	if m := messages(r, "pdb-blocks-eviction"); len(m) != 0 {
		t.Errorf("a budget over a workload at 0 read with the HPA's floor: %v", m)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "HorizontalPodAutoscaler shop/web does not scale Deployment/web: its replicas are 0") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestRolloutWorkloadRef: argoproj/argo-rollouts#3855, a Rollout with a
// workloadRef runs the Deployment's template with its own replicas.
func TestRolloutWorkloadRef(t *testing.T) {
	r := auditFile(t, strings.Replace(scaledWeb, "replicas: 1", "replicas: 0", 1)+`---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web-rollout, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}
`)
	got := strings.Join(messages(r, "pdb-blocks-eviction"), "\n")
	if !strings.Contains(got, "Rollout/web-rollout: replicas 2") {
		t.Errorf("pdb-blocks-eviction: %q", got)
	}
	if r.Summary.Generic != 1 || !strings.Contains(strings.Join(r.Notes, "\n"), "runs the pod template of Deployment web (workloadRef) with its own replicas (2)") {
		t.Errorf("generic %d, notes %q", r.Summary.Generic, r.Notes)
	}
	missing := auditFile(t, `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: lone, namespace: shop}
spec:
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: gone}
`)
	if !strings.Contains(strings.Join(missing.Notes, "\n"), "Deployment gone (workloadRef), which is not among the objects read: it is not audited") {
		t.Errorf("notes %q", missing.Notes)
	}
}

// A neighbour the audit does not understand that names a workload (a
// VerticalPodAutoscaler's targetRef, a custom autoscaler's
// scaleTargetRef, an unknown Rollout-like workloadRef) is said in one
// line each; one naming another workload, or a workload not read, is not.
func TestUnreadNeighbourIsSaid(t *testing.T) {
	r := auditFile(t, scaledWeb+`---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web-vpa, namespace: shop}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {updateMode: Auto}
---
apiVersion: scaling.example.com/v1
kind: QueueScaler
metadata: {name: web-queue, namespace: shop}
spec:
  scaleTargetRef: {kind: Deployment, name: web}
---
apiVersion: delivery.example.com/v1
kind: Canary
metadata: {name: other, namespace: shop}
spec:
  workloadRef: {kind: Deployment, name: api}
`)
	var said []string
	for _, n := range r.Notes {
		if strings.Contains(n, "the audit does not read that kind") {
			said = append(said, n)
		}
	}
	want := []string{
		"VerticalPodAutoscaler shop/web-vpa names Deployment shop/web (spec.targetRef), and the audit does not read that kind: what it changes in the workload's replicas or pods is not judged",
		"QueueScaler shop/web-queue names Deployment shop/web (spec.scaleTargetRef), and the audit does not read that kind: what it changes in the workload's replicas or pods is not judged",
	}
	if strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes %q, want %q", said, want)
	}
}

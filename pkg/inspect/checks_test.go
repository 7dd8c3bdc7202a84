package inspect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

type checkCase struct {
	name  string
	objs  []runtime.Object
	want  int    // findings of the check
	match string // substring of the first finding's message
}

func objs(o ...runtime.Object) []runtime.Object { return o }

func runCases(t *testing.T, check string, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := run(check, tc.objs...)
			if len(got) != tc.want {
				t.Fatalf("%s: got %d findings, want %d: %+v", check, len(got), tc.want, got)
			}
			if tc.match != "" && !strings.Contains(got[0].Message, tc.match) {
				t.Errorf("message %q does not contain %q", got[0].Message, tc.match)
			}
			for _, f := range got {
				if f.Severity == "" || f.Fix == "" || f.Object.Name == "" {
					t.Errorf("finding lacks severity, fix or object: %+v", f)
				}
			}
		})
	}
}

var web = service("web", app("web"))

func TestPreStopExceedsGrace(t *testing.T) {
	runCases(t, "prestop-exceeds-grace", []checkCase{
		{"native sleep below grace", objs(deploy("web", preStop(sleepHook(10)), grace(30))), 0, ""},
		{"native sleep equal to grace", objs(deploy("web", preStop(sleepHook(30)))), 1, "takes 30 s but the grace period is 30 s"},
		// kubernetes/ingress-gce#2222: the API server refuses the object.
		{"native sleep above default grace", objs(deploy("web", preStop(sleepHook(45)))), 1, `the API server refuses it ("must be non-negative and less than terminationGracePeriodSeconds (30)"), so the apply fails`},
		{"exec sleep above grace is the kubelet's to cut", objs(deploy("web", preStop(execHook("sleep", "45")))), 1, "the kubelet abandons the hook when the grace period runs out, 15 s before it would end, and only then sends SIGTERM"},
		{"exec sleep N", objs(deploy("web", preStop(execHook("sleep", "60")), grace(60))), 1, "60 s"},
		{"exec sleep Ns", objs(deploy("web", preStop(execHook("sleep", "40s")))), 1, "40 s"},
		{"sh -c and sleep", objs(deploy("web", preStop(execHook("sh", "-c", "/app/drain && sleep 35")))), 1, "35 s"},
		{"sleep after a quit is not counted", objs(deploy("web", preStop(execHook("sh", "-c", "nginx -s quit && sleep 35")))), 0, ""},
		{"/bin/sleep", objs(deploy("web", preStop(execHook("/bin/sleep", "31")))), 1, ""},
		{"busybox sleep", objs(deploy("web", preStop(execHook("busybox", "sleep", "30")))), 1, ""},
		{"httpGet is unknown, not flagged", objs(deploy("web", preStop(&corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}), grace(1))), 0, ""},
		{"no preStop", objs(deploy("web", preStop(nil), grace(1))), 0, ""},
	})
}

func TestShutdownBudgetExceedsGrace(t *testing.T) {
	runCases(t, "shutdown-budget-exceeds-grace", []checkCase{
		{"assumed 5 s fits", objs(deploy("web", preStop(sleepHook(20)), grace(30))), 0, ""},
		{"assumed 5 s does not fit", objs(deploy("web", preStop(sleepHook(28)), grace(30))), 1, "assumed"},
		{"declared annotation", objs(deploy("web", preStop(sleepHook(10)), grace(30), templateAnnotation(ShutdownSecondsAnnotation, "25"))), 1, "declared in"},
		{"declared, no preStop", objs(deploy("web", preStop(nil), grace(10), templateAnnotation(ShutdownSecondsAnnotation, "15"))), 1, "preStop 0 s"},
		{"no preStop, nothing declared", objs(deploy("web", preStop(nil), grace(2))), 0, ""},
		{"preStop >= grace left to prestop-exceeds-grace", objs(deploy("web", preStop(sleepHook(30)), grace(30))), 0, ""},
		{"httpGet counted as 0 with declared time", objs(deploy("web", preStop(&corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}), grace(20), templateAnnotation(ShutdownSecondsAnnotation, "30"))), 1, "unknown duration"},
	})
	n := int64(25)
	got := runWith("shutdown-budget-exceeds-grace", Version{1, 37}, Options{ShutdownSeconds: &n, PreStopFloorSeconds: 5, MaxGraceSeconds: 300}, deploy("web", grace(30)))
	if len(got) != 1 || !strings.Contains(got[0].Message, "--shutdown-seconds") {
		t.Errorf("--shutdown-seconds 25 with preStop 10 s and grace 30 s: got %+v", got)
	}
}

func TestMissingPreStop(t *testing.T) {
	headless := service("web", app("web"), func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
	metrics := service("web-metrics", app("web"), func(s *corev1.Service) { s.Spec.Ports[0].Name = "metrics" })
	other := service("web", map[string]string{"app": "web", "tier": "db"})
	sidecar := container(func(c *corev1.Container) {})
	runCases(t, "missing-prestop", []checkCase{
		{"behind a Service without preStop", objs(deploy("web", preStop(nil)), web), 1, "behind Service web"},
		{"with preStop", objs(deploy("web"), web), 0, ""},
		{"not behind a Service", objs(deploy("web", preStop(nil))), 0, ""},
		{"Service selector needs every pair", objs(deploy("web", preStop(nil)), other), 0, ""},
		{"headless Service with a client port counts (DNS lists ready pods only)", objs(deploy("web", preStop(nil)), headless), 1, "behind Service web"},
		{"metrics-only Service does not count", objs(deploy("web", preStop(nil)), metrics), 0, ""},
		{"Service in another namespace", objs(deploy("web", preStop(nil)), service("web", app("web"), func(s *corev1.Service) { s.Namespace = "other" })), 0, ""},
		{"only serving containers", objs(deploy("web", preStop(nil), sidecar, func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "exporter", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9100}}})
		}), web), 1, ""},
		{"Job is never behind a Service", objs(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: app("web")}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}}, web), 0, ""},
	})
	f := run("missing-prestop", deploy("web", preStop(nil)), web)[0]
	if !strings.Contains(f.Fix, `"sleep":{"seconds":10}`) {
		t.Errorf("fix for 1.37 should use the native sleep action: %s", f.Fix)
	}
	old := runWith("missing-prestop", Version{1, 28}, DefaultOptions(), deploy("web", preStop(nil)), web)[0]
	if !strings.Contains(old.Fix, `"exec"`) {
		t.Errorf("fix for 1.28 should use exec sleep: %s", old.Fix)
	}
}

func TestPreStopTooShort(t *testing.T) {
	runCases(t, "prestop-too-short", []checkCase{
		{"2 s behind a Service", objs(deploy("web", preStop(sleepHook(2))), web), 1, "2 s, below 5 s"},
		{"5 s is enough", objs(deploy("web", preStop(sleepHook(5))), web), 0, ""},
		{"not behind a Service", objs(deploy("web", preStop(sleepHook(1)))), 0, ""},
		{"custom binary is unknown", objs(deploy("web", preStop(execHook("/wait-shutdown"))), web), 0, ""},
	})
}

func TestPreStopSleepBinaryMissing(t *testing.T) {
	img := func(i string) deployOpt { return container(func(c *corev1.Container) { c.Image = i }) }
	runCases(t, "prestop-sleep-binary-missing", []checkCase{
		{"distroless with exec sleep", objs(deploy("web", img("gcr.io/distroless/static-debian12:nonroot"), preStop(execHook("sleep", "5")))), 1, "no shell"},
		{"chainguard static with sh", objs(deploy("web", img("cgr.dev/chainguard/static:latest"), preStop(execHook("/bin/sh", "-c", "sleep 5")))), 1, ""},
		{"scratch-based -static image", objs(deploy("web", img("example/app-static"), preStop(execHook("sleep", "5")))), 1, ""},
		{"distroless debug has busybox", objs(deploy("web", img("gcr.io/distroless/base:debug"), preStop(execHook("sleep", "5")))), 0, ""},
		{"regular image", objs(deploy("web", img("nginx:1.27"), preStop(execHook("sleep", "5")))), 0, ""},
		{"native sleep needs no binary", objs(deploy("web", img("gcr.io/distroless/static"), preStop(sleepHook(5)))), 0, ""},
		{"own binary", objs(deploy("web", img("gcr.io/distroless/static"), preStop(execHook("/app", "drain")))), 0, ""},
	})
}

func TestPreferNativeSleep(t *testing.T) {
	runCases(t, "prefer-native-sleep", []checkCase{
		{"exec sleep on 1.37", objs(deploy("web", preStop(execHook("sleep", "5")))), 1, "5 s sleep"},
		{"script is not a plain sleep", objs(deploy("web", preStop(execHook("sh", "-c", "sleep 5 && nginx -s quit")))), 0, ""},
		{"already native", objs(deploy("web")), 0, ""},
	})
	if got := runWith("prefer-native-sleep", Version{1, 29}, DefaultOptions(), deploy("web", preStop(execHook("sleep", "5")))); len(got) != 0 {
		t.Errorf("1.29 has no native sleep on by default, got %+v", got)
	}
	if got := runWith("prefer-native-sleep", Version{1, 31}, DefaultOptions(), deploy("web", preStop(execHook("sleep", "0")))); len(got) != 0 {
		t.Errorf("sleep 0 is only allowed natively from 1.33, got %+v", got)
	}
}

func TestGracePeriod(t *testing.T) {
	runCases(t, "grace-period-zero", []checkCase{
		{"zero", objs(deploy("web", grace(0))), 1, "SIGKILL"},
		{"default", objs(deploy("web")), 0, ""},
	})
	runCases(t, "grace-period-long", []checkCase{
		{"300 is the threshold", objs(deploy("web", grace(300))), 0, ""},
		{"301", objs(deploy("web", grace(301))), 1, "301 s"},
	})
}

func TestLBDeregistration(t *testing.T) {
	nlb := func(attrs string) *corev1.Service {
		return service("web", app("web"), func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeLoadBalancer
			s.Annotations = map[string]string{awsLBType: "external"}
			if attrs != "" {
				s.Annotations[nlbTargetGroupAttributes] = attrs
			}
		})
	}
	alb := func(attrs string) *networkingv1.Ingress {
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Annotations: map[string]string{}},
			Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("alb"), DefaultBackend: &networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web"}}}}
		if attrs != "" {
			ing.Annotations[albTargetGroupAttributes] = attrs
		}
		return ing
	}
	gke := service("web", app("web"), func(s *corev1.Service) {
		s.Annotations = map[string]string{gkeBackendConfig: `{"default":"drain"}`}
	})
	cases := []checkCase{
		{"NLB default 300 s > grace 30", objs(deploy("web"), nlb("")), 1, "300 s but the grace period is 30 s"},
		{"NLB delay 20 within grace, preStop 10 shorter", objs(deploy("web"), nlb("deregistration_delay.timeout_seconds=20,stickiness.enabled=false")), 1, "shorter than"},
		{"NLB delay 5 covered by preStop", objs(deploy("web"), nlb("deregistration_delay.timeout_seconds=5")), 0, ""},
		{"ALB Ingress default 300 s", objs(deploy("web"), web, alb("")), 1, "300 s"},
		{"ALB Ingress annotation", objs(deploy("web", grace(60)), web, alb("deregistration_delay.timeout_seconds=90")), 1, "90 s but the grace period is 60 s"},
		{"plain Service", objs(deploy("web"), web), 0, ""},
	}
	runCases(t, "lb-deregistration-exceeds-grace", cases)
	inv := &Inventory{Version: Version{1, 37}}
	inv.Add(deploy("web"), nil)
	inv.Add(gke, nil)
	inv.addBackendConfig("shop", "drain", 60)
	r := Audit(inv, DefaultOptions())
	found := false
	for _, f := range r.Findings {
		found = found || (f.Check == "lb-deregistration-exceeds-grace" && strings.Contains(f.Message, "GKE BackendConfig drain"))
	}
	if !found {
		t.Errorf("GKE BackendConfig draining 60 s > grace 30 s not reported: %+v", r.Findings)
	}
}

func TestProbes(t *testing.T) {
	noProbe := container(func(c *corev1.Container) { c.ReadinessProbe = nil })
	runCases(t, "missing-readiness-probe", []checkCase{
		{"behind a Service without probe", objs(deploy("web", noProbe), web), 1, "no readinessProbe"},
		{"not behind a Service", objs(deploy("web", noProbe)), 0, ""},
		{"with probe", objs(deploy("web"), web), 0, ""},
	})
	probePort := func(p intstr.IntOrString) deployOpt {
		return container(func(c *corev1.Container) { c.ReadinessProbe.HTTPGet.Port = p })
	}
	runCases(t, "readiness-probe-port-unknown", []checkCase{
		{"declared named port", objs(deploy("web")), 0, ""},
		{"undeclared named port", objs(deploy("web", probePort(intstr.FromString("health")))), 1, `"health"`},
		{"undeclared number is fine", objs(deploy("web", probePort(intstr.FromInt32(10254)))), 0, ""},
	})
	// jacksontj/promxy#372: the same undeclared name in a liveness or
	// startup probe is flagged too, with what kubelet does with it.
	probe := func(port intstr.IntOrString) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/-/healthy", Port: port}}}
	}
	liveness := func(p intstr.IntOrString) deployOpt {
		return container(func(c *corev1.Container) { c.LivenessProbe = probe(p) })
	}
	startup := func(p intstr.IntOrString) deployOpt {
		return container(func(c *corev1.Container) { c.StartupProbe = probe(p) })
	}
	runCases(t, "probe-port-unknown", []checkCase{
		{"liveness on a declared name", objs(deploy("web", liveness(intstr.FromString("http")))), 0, ""},
		{"liveness on an undeclared name", objs(deploy("web", liveness(intstr.FromString("web")))), 1,
			`livenessProbe targets port "web", which container app does not declare`},
		{"startup on an undeclared name", objs(deploy("web", startup(intstr.FromString("metrics")))), 1, "liveness and readiness probes never start"},
		{"liveness on an undeclared number", objs(deploy("web", liveness(intstr.FromInt32(9090)))), 0, ""},
		{"readiness alone is the other check's", objs(deploy("web", probePort(intstr.FromString("health")))), 0, ""},
	})
}

func TestPDBMissing(t *testing.T) {
	runCases(t, "pdb-missing", []checkCase{
		{"3 replicas, no PDB", objs(deploy("web")), 1, "3 replicas"},
		{"1 replica", objs(deploy("web", replicasOf(1))), 0, ""},
		{"1 replica, HPA minReplicas 2", objs(deploy("web", replicasOf(1)), hpa("web", 2)), 1, "2 replicas"},
		{"with PDB", objs(deploy("web"), pdbWith("web", matchApp("web"), "", "1")), 0, ""},
		{"PDB with matchExpressions", objs(deploy("web"), pdbWith("web", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}}}}, "", "1")), 0, ""},
		{"PDB with non-matching matchExpressions", objs(deploy("web"), pdbWith("web", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}}, "", "1")), 1, ""},
	})
}

func TestPDBBlocksEviction(t *testing.T) {
	runCases(t, "pdb-blocks-eviction", []checkCase{
		{"maxUnavailable 0", objs(deploy("web"), pdbWith("web", matchApp("web"), "", "0")), 1, "resolves to 0"},
		// kubernetes/kubernetes#90977: a single replica under minAvailable 1
		// is flagged, and the tool's own way through is named.
		{"single replica, minAvailable 1: --surge", objs(deploy("web", replicasOf(1)), pdbWith("web", matchApp("web"), "1", "")), 1,
			"no eviction is ever allowed; to drain a node without downtime anyway, `kubectl graceful drain node NODE --surge`"},
		{"maxUnavailable 0%", objs(deploy("web"), pdbWith("web", matchApp("web"), "", "0%")), 1, ""},
		{"maxUnavailable 10% rounds up to 1", objs(deploy("web"), pdbWith("web", matchApp("web"), "", "10%")), 0, ""},
		{"minAvailable 100%", objs(deploy("web"), pdbWith("web", matchApp("web"), "100%", "")), 1, "3 of 3"},
		{"minAvailable 90% of 3 rounds up to 3", objs(deploy("web"), pdbWith("web", matchApp("web"), "90%", "")), 1, ""},
		{"minAvailable 50% of 3 is 2", objs(deploy("web"), pdbWith("web", matchApp("web"), "50%", "")), 0, ""},
		{"minAvailable 3 of 3", objs(deploy("web"), pdbWith("web", matchApp("web"), "3", "")), 1, ""},
		{"minAvailable 2 of 3", objs(deploy("web"), pdbWith("web", matchApp("web"), "2", "")), 0, ""},
		{"minAvailable 100% names what it counted", objs(deploy("web"), pdbWith("web", matchApp("web"), "100%", "")), 1,
			"requires 3 of 3 pods (Deployment/web: replicas 3) to stay up: no eviction is ever allowed"},
		{"minAvailable 2 with HPA minReplicas 2", objs(deploy("web", replicasOf(5)), hpa("web", 2), pdbWith("web", matchApp("web"), "2", "")), 1,
			"requires 2 of 2 pods (Deployment/web: minReplicas 2 of HorizontalPodAutoscaler web) to stay up: whenever the HorizontalPodAutoscaler holds it at minReplicas"},
		{"minAvailable 100% with HPA: never", objs(deploy("web", replicasOf(5)), hpa("web", 2), pdbWith("web", matchApp("web"), "100%", "")), 1,
			"(Deployment/web: minReplicas 2 of HorizontalPodAutoscaler web) to stay up: no eviction is ever allowed"},
		{"selects nothing: not this check", objs(deploy("web"), pdbWith("web", matchApp("api"), "", "0")), 0, ""},
		{"neither minAvailable nor maxUnavailable", objs(deploy("web"), pdbWith("web", matchApp("web"), "", "")), 1, "sets neither minAvailable nor maxUnavailable"},
		{"live: status SyncFailed", objs(deploy("web"), syncFailedPDB()), 1, "reason SyncFailed: widgets.example.org does not implement the scale subresource"},
	})
}

// syncFailedPDB is a sound PDB whose status the disruption controller could
// not compute, as it writes it for pods owned by a custom resource without
// a scale subresource.
func syncFailedPDB() *policyv1.PodDisruptionBudget {
	p := pdbWith("web", matchApp("web"), "", "1")
	p.Status.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.SyncFailedReason, Message: "widgets.example.org does not implement the scale subresource"}}
	return p
}

func TestPDBOverlapAndSelection(t *testing.T) {
	runCases(t, "pdb-overlap", []checkCase{
		{"two PDBs", objs(deploy("web"), pdbWith("a", matchApp("web"), "", "1"), pdbWith("b", &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}, "", "1")), 1, "a, b"},
		{"empty selector matches everything (policy/v1)", objs(deploy("web"), pdbWith("a", matchApp("web"), "", "1"), pdbWith("all", &metav1.LabelSelector{}, "", "1")), 1, ""},
		{"one PDB", objs(deploy("web"), pdbWith("a", matchApp("web"), "", "1")), 0, ""},
	})
	runCases(t, "pdb-selects-nothing", []checkCase{
		{"no selector", objs(deploy("web"), pdbWith("a", nil, "", "1")), 1, "no selector"},
		{"typo", objs(deploy("web"), pdbWith("a", matchApp("wbe"), "", "1")), 1, "matches no workload"},
		{"matches", objs(deploy("web"), pdbWith("a", matchApp("web"), "", "1")), 0, ""},
	})
	inv := &Inventory{}
	inv.Add(pdbWith("prometheus", matchApp("prometheus"), "1", ""), nil)
	if err := inv.AddCustomResource(customObject("monitoring.coreos.com/v1", "Prometheus", "shop", "k8s", nil, nil), nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range Audit(inv, DefaultOptions()).Findings {
		if f.Check == "pdb-selects-nothing" {
			t.Errorf("a custom resource in the namespace may create the pods (operator): %+v", f)
		}
	}
	ifHealthy := pdbWith("a", matchApp("web"), "", "1")
	ifHealthy.Spec.UnhealthyPodEvictionPolicy = nil
	runCases(t, "pdb-unhealthy-eviction-policy", []checkCase{
		{"default policy", objs(deploy("web"), ifHealthy), 1, "(default)"},
		{"AlwaysAllow", objs(deploy("web"), pdbWith("a", matchApp("web"), "", "1")), 0, ""},
	})
	if got := runWith("pdb-unhealthy-eviction-policy", Version{1, 26}, DefaultOptions(), deploy("web"), ifHealthy); len(got) != 0 {
		t.Errorf("1.26 has no unhealthyPodEvictionPolicy by default: %+v", got)
	}
}

func TestPDBNoDisruptionsNow(t *testing.T) {
	p := pdbWith("a", matchApp("web"), "", "1")
	p.Status = policyv1.PodDisruptionBudgetStatus{ExpectedPods: 3, CurrentHealthy: 2, DesiredHealthy: 2}
	inv := &Inventory{Live: true}
	inv.Add(deploy("web"), nil)
	inv.Add(p, nil)
	r := Audit(inv, DefaultOptions())
	n := 0
	for _, f := range r.Findings {
		if f.Check == "pdb-no-disruptions-now" {
			n++
			if !strings.Contains(f.Message, "currentHealthy 2, desiredHealthy 2") {
				t.Errorf("message lacks the status numbers: %s", f.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("live PDB with disruptionsAllowed 0: %d findings, want 1", n)
	}
	manifest := Audit(&Inventory{PDBs: []PDB{{PodDisruptionBudget: *p}}}, DefaultOptions())
	if !hasSkipped(manifest, "pdb-no-disruptions-now") {
		t.Errorf("manifest mode must list pdb-no-disruptions-now as skipped: %+v", manifest.Skipped)
	}
}

func hasSkipped(r *Report, id string) bool {
	for _, s := range r.Skipped {
		if s.Check == id {
			return true
		}
	}
	return false
}

func TestRollouts(t *testing.T) {
	runCases(t, "single-replica", []checkCase{
		{"1 replica behind a Service", objs(deploy("web", replicasOf(1)), web), 1, "1 replica"},
		{"1 replica, HPA raises it", objs(deploy("web", replicasOf(1)), web, hpa("web", 2)), 0, ""},
		{"1 replica, HPA minReplicas 1", objs(deploy("web", replicasOf(3)), web, hpa("web", 1)), 1, ""},
		{"replicas unset defaults to 1", objs(deploy("web", func(d *appsv1.Deployment) { d.Spec.Replicas = nil }), web), 1, ""},
		{"2 replicas", objs(deploy("web", replicasOf(2)), web), 0, ""},
	})
	runCases(t, "rollout-downtime", []checkCase{
		{"Recreate behind a Service", objs(deploy("web", strategy(appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType})), web), 1, "Recreate"},
		{"Recreate without Service", objs(deploy("web", strategy(appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}))), 0, ""},
		{"default 25%/25%", objs(deploy("web")), 0, ""},
		{"maxUnavailable 100%", objs(deploy("web", strategy(rolling("25%", "100%")))), 1, "3 of 3"},
		{"maxUnavailable 3 of 3", objs(deploy("web", strategy(rolling("0", "3")))), 1, ""},
		{"maxUnavailable 1 of 1 replica", objs(deploy("web", replicasOf(1), strategy(rolling("0", "1")))), 1, ""},
		{"maxUnavailable 99% of 3 rounds down to 2", objs(deploy("web", strategy(rolling("0", "99%")))), 0, ""},
		{"maxUnavailable 50% of 1 rounds down to 0, surge 0 -> 1", objs(deploy("web", replicasOf(1), strategy(rolling("0%", "50%")))), 1, ""},
		{"maxUnavailable 50% of 1 with surge", objs(deploy("web", replicasOf(1), strategy(rolling("1", "50%")))), 0, ""},
	})
	noMin := func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 0 }
	runCases(t, "min-ready-seconds-zero", []checkCase{
		{"zero with probes", objs(deploy("web", noMin), web), 1, "minReadySeconds is 0"},
		{"zero without probes", objs(deploy("web", noMin, container(func(c *corev1.Container) { c.ReadinessProbe = nil })), web), 0, ""},
		{"set", objs(deploy("web"), web), 0, ""},
	})
}

func TestSuppressionAndSkip(t *testing.T) {
	d := deploy("web", preStop(nil))
	d.Annotations = map[string]string{SkipAnnotation: "missing-prestop, pdb-missing"}
	inv := &Inventory{}
	inv.Add(d, nil)
	inv.Add(web, nil)
	r := Audit(inv, DefaultOptions())
	for _, f := range r.Findings {
		if f.Check == "missing-prestop" || f.Check == "pdb-missing" {
			t.Errorf("suppressed by annotation but reported: %+v", f)
		}
	}
	if r.Summary.Suppressed != 2 {
		t.Errorf("Suppressed = %d, want 2", r.Summary.Suppressed)
	}
	opts := DefaultOptions()
	opts.Skip = []string{"min-ready-seconds-zero"}
	d2 := deploy("web", func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 0 })
	if got := runWith("min-ready-seconds-zero", Version{}, opts, d2, web); len(got) != 0 {
		t.Errorf("--skip min-ready-seconds-zero still reported: %+v", got)
	}
}

func TestUnavailableInputSkipsChecks(t *testing.T) {
	inv := &Inventory{Live: true}
	inv.Add(deploy("web"), nil)
	inv.Unavailable = map[Input]string{InputPDBs: "forbidden by RBAC"}
	r := Audit(inv, DefaultOptions())
	for _, id := range []string{"pdb-missing", "pdb-blocks-eviction", "pdb-overlap", "pdb-selects-nothing", "pdb-no-disruptions-now"} {
		if !hasSkipped(r, id) {
			t.Errorf("%s not skipped when PDBs cannot be read: %+v", id, r.Skipped)
		}
	}
	if hasSkipped(r, "prestop-exceeds-grace") {
		t.Errorf("checks not needing PDBs must still run")
	}
}

func TestPodFindings(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](10), Containers: []corev1.Container{
			{Name: "app", Lifecycle: &corev1.Lifecycle{PreStop: sleepHook(15)}}}}}
	got := PodFindings(pod)
	if len(got) != 1 || got[0].Check != "prestop-exceeds-grace" || got[0].Object.Kind != "Pod" || got[0].Container != "app" {
		t.Fatalf("PodFindings = %+v", got)
	}
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
	ids := map[string]bool{}
	for _, f := range PodFindings(pod) {
		ids[f.Check] = true
	}
	if !ids["grace-period-zero"] {
		t.Errorf("grace 0 not reported: %v", ids)
	}
	pod.Annotations = map[string]string{SkipAnnotation: "all"}
	if got := PodFindings(pod); len(got) != 0 {
		t.Errorf("skip annotation all: %+v", got)
	}
}

func TestEveryCheckIsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if seen[c.ID] {
			t.Errorf("duplicate ID %s", c.ID)
		}
		seen[c.ID] = true
		d := c.Explanation
		if c.Summary == "" || d.Why == "" || d.Fix == "" || d.Source == "" {
			t.Errorf("%s lacks summary or doc: %+v", c.ID, d)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "audit.md"))
	if err != nil {
		t.Fatal(err)
	}
	for id := range seen {
		if !strings.Contains(string(doc), "\n### "+id+"\n") {
			t.Errorf("docs/audit.md has no section for %s (run make docs)", id)
		}
	}
}

// TestDocsListEveryCheck keeps docs/audit.md (merged into the README) in
// step with the catalogue: every ID has a table row and a section.
func TestDocsListEveryCheck(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "audit.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, c := range Checks() {
		if !strings.Contains(doc, "| [`"+c.ID+"`](#"+c.ID+")") || !strings.Contains(doc, "\n### "+c.ID+"\n") {
			t.Errorf("docs/audit.md lacks the row or section of %s", c.ID)
		}
	}
}

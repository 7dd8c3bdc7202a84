package timeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// A preStop `kill 1` in a pod that shares its process namespace, on the
// real node: PID 1 is the pod's pause process, which exits on SIGTERM, and
// the kernel then SIGKILLs every process of the pod. The app's own log
// must show no SIGTERM, and its exit must be a 137 long before the grace
// deadline; the watch must say it was not the kubelet's SIGKILL and name
// the pause process, never "ignored SIGTERM"; and the audit of the same
// spec must name the fault.
func TestRealNodeSharedProcessNamespaceKill1(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	spec := sharedPIDPod("kill 1; sleep 5")
	runRealScenario(t, env, realScenario{name: t.Name(), pods: twoOf(spec), check: func(t *testing.T, r run, sigterm map[string]int64) {
		if at, got := sigterm["app"]; got {
			t.Fatalf("the app logged SIGTERM at %+d ms: the hook did not end the pod's pause process", at)
		}
		v := r.summary.Verdict
		var exit *int64
		for _, x := range v.Exits {
			if x.Container == "app" && x.Code == 137 {
				exit = &x.Ms
			}
		}
		if exit == nil || *exit > v.DeadlineMs-5000 {
			t.Fatalf("want app's exit 137 long before the grace deadline +%d ms: %+v", v.DeadlineMs, v.Exits)
		}
		all := strings.Join(v.Findings, "\n")
		for _, want := range []string{"not the kubelet's SIGKILL", "PID 1 is the pod's pause process"} {
			if !strings.Contains(all, want) {
				t.Errorf("no finding says %q:\n%s", want, all)
			}
		}
		for _, wrong := range []string{"ignored SIGTERM", "missing sleep binary", "SIGTERM came at once"} {
			if strings.Contains(all, wrong) {
				t.Errorf("a finding says %q, against the app's own log (no SIGTERM) and its exit 137 at %+d ms:\n%s", wrong, *exit, all)
			}
		}
		auditSays(t, env, spec, "kills every process of every container")
	}})
}

// auditSays audits spec as a Deployment's manifest and wants a
// prestop-signals-pause finding that says want.
func auditSays(t *testing.T, env *e2e.Env, spec corev1.PodSpec, want string) {
	t.Helper()
	auditFinds(t, env, spec, "prestop-signals-pause", want)
}

// auditFinds audits spec as a Deployment's manifest and wants a finding
// of check id that says want.
func auditFinds(t *testing.T, env *e2e.Env, spec corev1.PodSpec, id, want string) {
	t.Helper()
	labels := map[string]string{"app": "web"}
	d := appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
	b, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := kubectl(t, env, "audit", "-f", file, "-o", "json", "--fail-on", "none")
	if !strings.Contains(stdout, id) || !strings.Contains(stdout, want) {
		t.Errorf("the audit of the same spec does not name the fault:\n%s\n%s", stdout, stderr)
	}
}

// The same pod with `kill -QUIT 1`: the pause process has no handler for
// SIGQUIT and, as the namespace's init, never gets it. The hook does
// nothing but sleep: the app's own log shows SIGTERM only after the hook's
// 5 s, and the audit says the hook does nothing.
func TestRealNodeSharedProcessNamespaceQuit1(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	spec := sharedPIDPod("kill -QUIT 1; sleep 5")
	runRealScenario(t, env, realScenario{name: t.Name(), pods: twoOf(spec), check: func(t *testing.T, r run, sigterm map[string]int64) {
		if at, got := sigterm["app"]; !got || at < 5000 {
			t.Fatalf("the app's own SIGTERM (logged %v, at %+d ms) is not after the hook's 5 s sleep: the hook's SIGQUIT did something", got, at)
		}
		bounded(t, "SIGTERM (Killing + the hook's sleep 5, its kill -QUIT 1 ignored by pause)", r.summary.Verdict, sigterm["app"])
		if all := strings.Join(r.summary.Verdict.Findings, "\n"); strings.Contains(all, "not the kubelet's SIGKILL") {
			t.Errorf("an early kill is reported where nothing was killed:\n%s", all)
		}
		auditSays(t, env, spec, "does nothing: pause handles only SIGTERM and SIGINT")
	}})
}

// sharedPIDPod is the shell test app in a pod that shares its process
// namespace, with a 20 s grace period and script as its exec preStop.
func sharedPIDPod(script string) corev1.PodSpec {
	spec := realPod(realnode.PodOpts{Shell: true, Grace: 20,
		PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", script}}}})
	shared := true
	spec.ShareProcessNamespace = &shared
	return spec
}

// A sidecar's preStop `killall testapp` in a pod that shares its process
// namespace, on the real node: killall picks its targets by name among
// every container's processes, so the app (the same executable, in the
// other container) gets SIGTERM from it a second into the termination, by
// its own log, not after its own 5 s preStop; and the audit of the same
// spec names the app as the container it stops.
func TestRealNodeSharedProcessNamespaceKillall(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	spec := realPod(realnode.PodOpts{Shell: true, Grace: 20, PreStop: execSleepHook(5)})
	spec.Containers[0].Command = []string{"/testapp"}
	side := realnode.Container("side", 9090, realnode.PodOpts{Shell: true,
		PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "sleep 1; busybox killall testapp"}}}})
	spec.Containers = append(spec.Containers, side)
	spec.ShareProcessNamespace = new(true)
	runRealScenario(t, env, realScenario{name: t.Name(), pods: twoOf(spec), check: func(t *testing.T, r run, sigterm map[string]int64) {
		at, got := sigterm["app"]
		if !got || at >= 4000 {
			t.Fatalf("the app's own SIGTERM (logged %v, at %+d ms) is not the sidecar's killall a second in: want it before its own 5 s preStop ended", got, at)
		}
		v := r.summary.Verdict
		if findingWith(v, "missing sleep binary") || !findingWith(v, `container side's preStop runs "killall testapp"`) {
			t.Errorf("the watch does not name the sidecar's killall that ended the app's hook at +%d ms:\n%s", at, strings.Join(v.Findings, "\n"))
		}
		auditFinds(t, env, spec, "prestop-kills-other-container", "container(s) app run a command of that name")
	}})
}

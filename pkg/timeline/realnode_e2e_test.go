package timeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// realScenario is one termination on the real node (a real kubelet,
// containerd and kube-proxy in nftables mode), watched by the plugin with
// --probe while the test sends and counts requests of its own.
type realScenario struct {
	name string
	// pods are the pods web-0 (deleted under watch), web-1...; each spec
	// gets the signal log mounted.
	pods []corev1.PodSpec
	// port is the Service's target port (the sidecar's, when it fronts
	// the app).
	port int32
	// extra are more watch flags.
	extra []string
	// check asserts what the scenario is about.
	check func(t *testing.T, r run, sigterm map[string]int64)
	// during, when set, runs beside the watch from its start (a fault
	// injected into the node); it must not call t.Fatal.
	during func(t *testing.T, ns string)
}

// realPod is a test-app pod spec with its SIGTERM log on the host.
func realPod(o realnode.PodOpts) corev1.PodSpec { return realnode.PodSpec(o) }

func sleepHook(seconds int64) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: seconds}}
}

func execSleepHook(seconds int) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", fmt.Sprint(seconds)}}}
}

// withSidecar adds a second test-app container "proxy" on port 9090:
// an ordinary container, or a native sidecar (initContainer with
// restartPolicy Always) whose preStop asks it to quit at once.
func withSidecar(spec corev1.PodSpec, native bool) corev1.PodSpec {
	c := realnode.Container("proxy", 9090, realnode.PodOpts{})
	if native {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
		c.Env = append(c.Env, corev1.EnvVar{Name: "QUIT_PATH", Value: "/quitquitquit"})
		c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/quitquitquit", Port: intstr.FromInt32(9090)}}}
		spec.InitContainers = append(spec.InitContainers, c)
	} else {
		spec.Containers = append(spec.Containers, c)
	}
	return spec
}

func twoOf(s corev1.PodSpec) []corev1.PodSpec { return []corev1.PodSpec{s, s} }

// TestRealNodeMatrix runs the scenario matrix on the real node,
// through the real kubectl. In every scenario the verdict must agree with
// the requests counted, by the test and by --probe: SAFE only when none
// failed (and nothing uncertain was seen), RISK whenever one did.
func TestRealNodeMatrix(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	scenarios := []realScenario{
		{name: "no preStop", pods: twoOf(realPod(realnode.PodOpts{})), check: func(t *testing.T, r run, sigterm map[string]int64) {
			v := r.summary.Verdict
			if !v.Risk {
				t.Errorf("no preStop, and no risk")
			}
			bounded(t, "SIGTERM (Killing's arrival)", v, sigterm["app"])
			if out := v.EndpointOutMs; out != nil && v.SigtermLatestMs != nil && *out <= *v.SigtermLatestMs && !findingWith(v, "cannot be told from the API") {
				t.Errorf("the endpoint left at +%d ms, inside SIGTERM's bounds, but no finding says the order cannot be told:\n%s", *out, strings.Join(v.Findings, "\n"))
			}
		}},
		{name: "exec sleep preStop in an image with a shell", pods: twoOf(realPod(realnode.PodOpts{Shell: true, PreStop: execSleepHook(5)})), check: func(t *testing.T, r run, sigterm map[string]int64) {
			bounded(t, "SIGTERM (Killing + exec sleep 5)", r.summary.Verdict, sigterm["app"])
		}},
		// The real-kubelet finding: a preStop longer than the grace
		// period is abandoned at the deadline, and the app gets SIGTERM then
		// (its own log says when), with 2 s before SIGKILL; the late
		// FailedPreStopHook is not a hook that failed at once.
		{name: "exec sleep preStop longer than the grace period", pods: twoOf(realPod(realnode.PodOpts{Shell: true, PreStop: execSleepHook(20), Grace: 4})), check: func(t *testing.T, r run, sigterm map[string]int64) {
			v := r.summary.Verdict
			bounded(t, "SIGTERM (Killing + the grace period, the hook abandoned)", v, sigterm["app"])
			if !v.PreStopAbandoned || v.PreStopFailed {
				t.Errorf("preStop abandoned %v, failed at once %v: want abandoned, not failed", v.PreStopAbandoned, v.PreStopFailed)
			}
			for _, wrong := range []string{"never sent", "never happened", "killed inside preStop"} {
				if findingWith(v, wrong) {
					t.Errorf("a finding says %q against the app's own SIGTERM at %+d ms:\n%s", wrong, sigterm["app"], strings.Join(v.Findings, "\n"))
				}
			}
		}},
		{name: "native sleep preStop", pods: twoOf(realPod(realnode.PodOpts{PreStop: sleepHook(5)})), check: func(t *testing.T, r run, sigterm map[string]int64) {
			bounded(t, "SIGTERM (Killing + sleep 5)", r.summary.Verdict, sigterm["app"])
		}},
		{name: "SIGTERM ignored, SIGKILL at the grace deadline", pods: twoOf(realPod(realnode.PodOpts{SigtermAction: "ignore", Grace: 3})), check: func(t *testing.T, r run, _ map[string]int64) {
			v := r.summary.Verdict
			if !findingWith(v, "SIGKILLed (exit 137)") || findingWith(v, "requests routed to it meanwhile fail") {
				t.Errorf("want the SIGKILL and no 'meanwhile fail' claim drawn from SIGTERM:\n%s", strings.Join(v.Findings, "\n"))
			}
		}},
		{name: "exec sleep in the shell-less image (FailedPreStopHook)", pods: twoOf(realPod(realnode.PodOpts{PreStop: execSleepHook(5)})), check: func(t *testing.T, r run, sigterm map[string]int64) {
			v := r.summary.Verdict
			if !v.PreStopFailed || !strings.HasPrefix(v.SigtermBasisText, "FailedPreStopHook") {
				t.Errorf("preStop failed %v, SIGTERM basis %q: want it placed at FailedPreStopHook", v.PreStopFailed, v.SigtermBasisText)
			}
			bounded(t, "SIGTERM (FailedPreStopHook)", v, sigterm["app"])
			if real := sigterm["app"]; v.EndpointOutMs != nil && real > *v.EndpointOutMs && findingWith(v, "race window: container") {
				t.Errorf("SIGTERM came %d ms after the endpoint left, yet a race window is reported:\n%s", real-*v.EndpointOutMs, strings.Join(v.Findings, "\n"))
			}
		}},
		{name: "the last replica", pods: []corev1.PodSpec{realPod(realnode.PodOpts{})}, check: func(t *testing.T, r run, _ map[string]int64) {
			if rv := r.summary.Verdict.Requests; rv == nil || rv.Failed == 0 {
				t.Errorf("the last replica went and no request failed: %+v", rv)
			}
		}},
		{name: "ordinary sidecar without preStop beside an app with one", port: 9090,
			pods: twoOf(withSidecar(realPod(realnode.PodOpts{PreStop: sleepHook(5)}), false)), check: func(t *testing.T, r run, _ map[string]int64) {
				if v := r.summary.Verdict; !findingWith(v, "container proxy has no preStop") {
					t.Errorf("the proxy stopping first is not named:\n%s", strings.Join(v.Findings, "\n"))
				}
			}},
		{name: "native sidecar whose preStop ends it while the app serves", port: 9090,
			pods: twoOf(withSidecar(realPod(realnode.PodOpts{PreStop: sleepHook(5)}), true))},
		{name: "keep-alive client", extra: []string{"--probe-keepalive"},
			pods: twoOf(realPod(realnode.PodOpts{SigtermAction: "drain:2s", PreStop: sleepHook(5)}))},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) { runRealScenario(t, env, sc) })
	}
}

// runRealScenario creates the pods and their Service, deletes web-0 under
// watch with --probe at the ClusterIP, counts its own requests to it too,
// and holds the verdict to both counts. It returns the watch's run.
func runRealScenario(t *testing.T, env *e2e.Env, sc realScenario) run {
	ns := env.Namespace(t)
	logs := t.TempDir()
	ip := setUpReal(t, env, ns, sc.pods, sc.port, logs)
	url := "http://" + ip + "/"
	defer e2e.GuardUntouched(t)()
	stop := make(chan struct{})
	counted := make(chan *e2e.Requests, 1)
	go func() { counted <- e2e.CountRequests(t, ip, url, 50*time.Millisecond, 1200, 60*time.Second, stop) }()
	time.Sleep(500 * time.Millisecond) // requests before the delete, for the latency baseline
	args := append(watchJSON(ns, "web-0", "--delete", "--probe", url, "--probe-rate", "20", "--settle", "2s"), sc.extra...)
	faultDone := make(chan struct{})
	go func() {
		defer close(faultDone)
		if sc.during != nil {
			sc.during(t, ns)
		}
	}()
	stdout, stderr, code := kubectl(t, env, args...)
	<-faultDone
	close(stop)
	own := <-counted
	r := parseRun(t, stdout, stderr, code)
	r.own = own
	v := r.summary.Verdict
	t.Logf("exit %d; the test's own requests: %d sent, %d failed %v; findings:\n%s", r.code, own.Sent, len(own.Failures), own.Failures, strings.Join(v.Findings, "\n"))
	probeFailed := 0
	if v.Requests != nil {
		probeFailed = v.Requests.Failed
	}
	if !v.Risk && (probeFailed > 0 || len(own.Failures) > 0) {
		t.Errorf("verdict SAFE, but requests failed: --probe %d, the test's own %d %v", probeFailed, len(own.Failures), own.Failures)
	}
	if (probeFailed > 0 || len(own.Failures) > 0) && r.code != 2 {
		t.Errorf("requests failed but the exit status is %d, want 2", r.code)
	}
	if probeFailed > 0 && !findingWith(v, "requests failed") {
		t.Errorf("failed requests are not named as a cause:\n%s", strings.Join(v.Findings, "\n"))
	}
	checkReportedTimes(t, r, filepath.Join(logs, "0"))
	checkExitFacts(t, r, filepath.Join(logs, "0"))
	if sc.check != nil {
		sc.check(t, r, sigtermTimes(t, r, filepath.Join(logs, "0")))
	}
	return r
}

// checkReportedTimes holds what the timeline says of the kubelet's reports
// to the app's own log: an exit is the kubelet's report, after the process
// ended, with finishedAt the second it ended in; and a condition printed
// with a server time changed then (a real kubelet's reason-only changes,
// with old transition times, carry none).
//
// A condition's server time is its lastTransitionTime, set by the kubelet
// when it computed the status; the status reaches the API when the kubelet
// syncs it, later on a starved node. So a condition may arrive as late as
// the kubelet's slowest exit report of the same run (measured against the
// app's own log) plus finishedAt's whole second; beyond that, and beyond
// 2.5 s, it is a clock error.
func checkReportedTimes(t *testing.T, r run, dir string) {
	t.Helper()
	conditionLag := 2500 * time.Millisecond
	for _, e := range r.events {
		if e.Kind == timeline.KindContainerExit && e.Container != "" {
			if exits := logTimes(t, filepath.Join(dir, e.Container+".log"), "exit 0 at "); len(exits) > 0 {
				conditionLag = max(conditionLag, e.Local.Sub(exits[0])+time.Second)
			}
		}
	}
	for _, e := range r.events {
		switch {
		case e.Kind == timeline.KindContainerExit && e.Container != "":
			if !strings.Contains(e.Message, "as reported by the kubelet") {
				t.Errorf("the exit is not said to be the kubelet's report: %q", e.Message)
			}
			if exits := logTimes(t, filepath.Join(dir, e.Container+".log"), "exit 0 at "); len(exits) > 0 {
				real := exits[0]
				// The app logs its exit just before the process ends:
				// finishedAt may be the next second.
				if d := e.Server.Unix() - real.Unix(); e.Local.Before(real) || d < 0 || d > 1 {
					t.Errorf("container %s: exit reported at %s with finishedAt %s; it exited at %s by its own log", e.Container, e.Local.Format(time.StampMicro), e.Server.Format(time.Stamp), real.Format(time.StampMicro))
				}
				t.Logf("container %s: exit reported %d ms after its own exit", e.Container, e.Local.Sub(real).Milliseconds())
			}
		case e.Kind == timeline.KindCondition && !e.Server.IsZero():
			if lag := e.Local.Sub(e.Server); lag > conditionLag {
				t.Errorf("condition %q printed with a server time %s before it arrived, more than the kubelet's report delay this run (%s): it looks like a clock error", e.Message, lag, conditionLag)
			}
		}
	}
}

// logTimes returns the times of the lines of a test-app log that hold
// prefix followed by an RFC 3339 time.
func logTimes(t *testing.T, file, prefix string) []time.Time {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []time.Time
	for _, line := range strings.Split(string(b), "\n") {
		if _, at, ok := strings.Cut(line, prefix); ok {
			if ts, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(at)); err == nil {
				out = append(out, ts)
			}
		}
	}
	return out
}

// setUpReal creates pods web-0, web-1... of specs on the real node (each
// with its signal log under logs/N) and Service web to port (8080 when
// 0), waits until kube-proxy answers its ClusterIP, and returns it.
func setUpReal(t *testing.T, env *e2e.Env, ns string, specs []corev1.PodSpec, port int32, logs string) string {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	for i, spec := range specs {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}}, Spec: withSignalLog(spec, filepath.Join(logs, fmt.Sprint(i)))}
		if _, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod: %v", err)
		}
	}
	var first *corev1.Pod
	for i := range specs {
		if p := waitPodReady(t, env, ns, fmt.Sprintf("web-%d", i)); i == 0 {
			first = p
		}
	}
	if port == 0 {
		port = 8080
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(port)}}}}
	created, err := env.Client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating service: %v", err)
	}
	waitEndpointReady(t, env, ns, "web", first)
	ip := created.Spec.ClusterIP
	waitServed(t, ip, "http://"+ip+"/")
	return ip
}

// withSignalLog mounts dir (made on the host) at /log in every container
// and points the test app's SIGNAL_LOG there, one file per container, so
// that the app's own SIGTERM times outlive the pod.
func withSignalLog(in corev1.PodSpec, dir string) corev1.PodSpec {
	spec := *in.DeepCopy()
	create := corev1.HostPathDirectoryOrCreate
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "log", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: &create}}})
	for _, list := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range list {
			c := &list[i]
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "log", MountPath: "/log"})
			c.Env = append(c.Env, corev1.EnvVar{Name: "SIGNAL_LOG", Value: "/log/" + c.Name + ".log"})
		}
	}
	return spec
}

// waitServed checks the route to ip and waits (at most 10 s, 20 requests)
// until kube-proxy's rules answer url.
func waitServed(t *testing.T, ip, url string) {
	t.Helper()
	stop := make(chan struct{})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := e2e.CountRequests(t, ip, url, 10*time.Millisecond, 1, time.Second, stop)
		if r.Sent == 1 && len(r.Failures) == 0 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s never answered through kube-proxy", url)
}

// sigtermTimes reads the app's own SIGTERM log of each container of web-0
// (dir) and returns the first SIGTERM of each in ms since the delete
// request, on the wall clock the plugin's events carry.
func sigtermTimes(t *testing.T, r run, dir string) map[string]int64 {
	t.Helper()
	out := ownTimes(t, r, dir, "SIGTERM at ")
	t.Logf("the app's own SIGTERM times (ms since the delete request): %v", out)
	return out
}

// ownTimes reads, from each container's own log in dir, the first line
// with marker (followed by an RFC 3339 time) as ms since the delete
// request, on the wall clock the plugin's events carry.
func ownTimes(t *testing.T, r run, dir, marker string) map[string]int64 {
	t.Helper()
	var t0 time.Time
	for _, e := range r.events {
		if e.Kind == timeline.KindDeleteSent && e.Ms != nil {
			t0 = e.Local.Add(-time.Duration(*e.Ms) * time.Millisecond)
		}
	}
	if t0.IsZero() {
		t.Fatalf("no DeleteSent event in:\n%s", r.stdout)
	}
	out := map[string]int64{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if _, at, ok := strings.Cut(line, marker); ok {
				ts, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(at))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				name := strings.TrimSuffix(filepath.Base(f), ".log")
				if _, seen := out[name]; !seen {
					out[name] = ts.Sub(t0).Milliseconds()
				}
			}
		}
	}
	return out
}

// bounded checks that the app's own SIGTERM lies inside the verdict's
// bounds for it: the estimate may be off, its bounds may not.
func bounded(t *testing.T, what string, v timeline.Verdict, real int64) {
	t.Helper()
	if v.SigtermMs == nil || v.SigtermEarliestMs == nil || v.SigtermLatestMs == nil {
		t.Errorf("%s: no estimate with bounds; the app logged SIGTERM at %+d ms", what, real)
		return
	}
	t.Logf("%s: estimated %+d ms (bounds %+d..%+d), the app's own SIGTERM %+d ms: off by %+d ms", what, *v.SigtermMs, *v.SigtermEarliestMs, *v.SigtermLatestMs, real, *v.SigtermMs-real)
	if real < *v.SigtermEarliestMs || real > *v.SigtermLatestMs {
		t.Errorf("%s: the app logged SIGTERM at %+d ms, outside the bounds %+d..%+d ms", what, real, *v.SigtermEarliestMs, *v.SigtermLatestMs)
	}
}

// exitFinding matches the verdict's fact about one container's exit: dated
// by the report ("at +X ms as reported") or, reported late, by its
// finishedAt ("between +A and +B ms by its finishedAt").
var exitFinding = regexp.MustCompile(`^container (\S+) exited \d+ (?:at ([+-]\d+) ms as reported|between ([+-]\d+) and ([+-]\d+) ms by its finishedAt)`)

// checkExitFacts holds each exit fact of the verdict to the app's own log
// of its exit (ms since the delete request): a report-dated exit came at
// most 2 s after it (the kubelet's usual lag is up to about 1 s; 14 s was a late
// report that must be dated by finishedAt instead), and a finishedAt-dated
// one has the app's exit inside its bounds.
func checkExitFacts(t *testing.T, r run, dir string) {
	t.Helper()
	own := ownTimes(t, r, dir, "exit 0 at ")
	for _, f := range r.summary.Verdict.Findings {
		m := exitFinding.FindStringSubmatch(f)
		if m == nil {
			continue
		}
		real, logged := own[m[1]]
		if !logged {
			continue
		}
		if m[2] != "" {
			if at, _ := strconv.ParseInt(m[2], 10, 64); at-real > 2000 {
				t.Errorf("the exit of %s is dated by a report %d ms after its own exit (+%d ms): %s", m[1], at-real, real, f)
			}
			continue
		}
		lo, _ := strconv.ParseInt(m[3], 10, 64)
		hi, _ := strconv.ParseInt(m[4], 10, 64)
		if real < lo-100 || real > hi+100 {
			t.Errorf("container %s exited at +%d ms by its own log, outside %s", m[1], real, f)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// TestWatchPodReadsIngressController deletes one pod of a naive and one of
// a hardened Deployment behind the real Ingress controller with `watch pod
// --delete --ingress-api`, while the test's own loop sends requests
// through the proxy. The timeline shows the proxy's own view of the pod's
// server (listed at the start, fenced or removed later) and the verdict
// judges the stop against it: where the test saw 502s the verdict never
// says the proxy had stopped first, and for the hardened pod (no failure
// seen) it says the proxy stopped before SIGTERM, by the proxy's time.
func TestWatchPodReadsIngressController(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	ns, naive, hardened := ingressApps(t, env, "wnaive", "whard")
	for _, a := range []realApp{naive, hardened} {
		t.Run(a.name[:5], func(t *testing.T) {
			pod := onePodOf(t, env, ns, a.name)
			stop := make(chan struct{})
			done := make(chan *e2e.Requests, 1)
			go func() {
				done <- e2e.CountRequests(t, realnode.IngressIP, "http://"+realnode.IngressIP+"/"+a.name, 10*time.Millisecond, 3000, time.Minute, stop)
			}()
			time.Sleep(time.Second)
			r := env.Kubectl(t, "graceful", "watch", "pod", pod, "-n", ns, "--delete", "--settle", "2s",
				"--ingress-api", realnode.IngressAPI(), "-o", "json")
			close(stop)
			loop := <-done
			bad := 0
			for _, f := range loop.Failures {
				if strings.HasSuffix(f, "502 Bad Gateway") {
					bad++
				}
			}
			t.Logf("own loop through the Ingress: %d requests, %d failed (%d 502) %v", loop.Sent, len(loop.Failures), bad, loop.Failures)
			v, kinds := ingressVerdict(t, r.Stdout)
			if !kinds["ingress-added"] || !(kinds["ingress-fenced"] || kinds["ingress-removed"]) {
				t.Fatalf("the timeline lacks the proxy's own view of the pod's server (kinds %v):\n%s\n%s", kinds, r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stdout+r.Stderr, "routed to by Ingress ") {
				t.Errorf("the watch does not name the Ingress that routes to the pod:\n%s", r.Stderr)
			}
			findings := strings.Join(v.Findings, "\n")
			t.Logf("verdict (ingressOutMs %v, SIGTERM %v):\n%s", deref(v.IngressOutMs), deref(v.SigtermMs), findings)
			stoppedFirst := strings.Contains(findings, "the Ingress controller stopped sending the pod new requests at")
			if bad > 0 && stoppedFirst {
				t.Errorf("the test saw %d 502s through the proxy, yet the verdict says the proxy stopped first:\n%s", bad, findings)
			}
			if a.name == hardened.name {
				if len(loop.Failures) != 0 {
					t.Errorf("hardened: %d requests failed through the Ingress; want none", len(loop.Failures))
				}
				if !stoppedFirst || v.IngressOutMs == nil || v.SigtermMs == nil || *v.IngressOutMs >= *v.SigtermMs {
					t.Errorf("hardened: want the proxy out before SIGTERM, by its own API; got ingressOutMs %v sigterm %v:\n%s", v.IngressOutMs, v.SigtermMs, findings)
				}
			}
			if a.name == naive.name && bad > 0 && !strings.Contains(findings, "Ingress controller") {
				t.Errorf("naive: %d 502s seen, but the verdict does not name the Ingress controller:\n%s", bad, findings)
			}
		})
	}
}

// onePodOf is the name of one running pod of app, on the first real node.
func onePodOf(t *testing.T, env *e2e.Env, ns, app string) string {
	t.Helper()
	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == realnode.NodeName && p.DeletionTimestamp == nil {
			return p.Name
		}
	}
	t.Fatalf("no pod of %s on %s", app, realnode.NodeName)
	return ""
}

// ingressVerdict reads -o json's lines: the verdict of the summary and
// the kinds of the events.
func ingressVerdict(t *testing.T, out string) (ingressVerdictJSON, map[string]bool) {
	t.Helper()
	kinds := map[string]bool{}
	var v ingressVerdictJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o struct {
			Type    string             `json:"type"`
			Kind    string             `json:"kind"`
			Verdict ingressVerdictJSON `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", line, err)
		}
		kinds[o.Kind] = kinds[o.Kind] || o.Type == "event"
		if o.Type == "summary" {
			v = o.Verdict
		}
	}
	return v, kinds
}

type ingressVerdictJSON struct {
	Findings     []string `json:"findings"`
	IngressOutMs *int64   `json:"ingressOutMs"`
	SigtermMs    *int64   `json:"sigtermEstimatedMs"`
	Requests     struct {
		Proxy *timeline.ProxyCounts `json:"proxy"`
	} `json:"requests"`
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// viaIngress sends an app's requests through the Ingress controller, at
// the path createIngress gave it.
func viaIngress(a realApp) (string, string) {
	return realnode.IngressIP, "http://" + realnode.IngressIP + "/" + a.name
}

// TestRestartWatchReadsIngressController restarts a hardened Deployment
// with `watch deployment/NAME --restart --ingress-api` while the test's
// own loop sends requests through the proxy: every old pod's timeline
// shows the proxy's own view of its server going (fenced or removed),
// every new pod's arriving, and with no request lost the verdicts say the
// proxy stopped sending to each old pod before its SIGTERM.
func TestRestartWatchReadsIngressController(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	ns, _, hardened := ingressApps(t, env, "rnaive", "rhard")
	stop := make(chan struct{})
	counts := loopsVia(t, stop, viaIngress, hardened)
	time.Sleep(time.Second)
	r := e2e.RunKubectlFor(t, 3*time.Minute, []string{"KUBECONFIG=" + env.Kubeconfig}, "graceful", "watch", "deployment/"+hardened.name,
		"-n", ns, "--restart", "--settle", "2s", "--ingress-api", realnode.IngressAPI(), "-o", "json")
	close(stop)
	loop := counts()[hardened.name]
	t.Logf("own loop through the Ingress: %d requests, %d failed %v", loop.Sent, len(loop.Failures), loop.Failures)
	if !strings.Contains(r.Stdout+r.Stderr, "routed to by Ingress "+hardened.name+" (Service "+hardened.name) {
		t.Errorf("the watch does not name Ingress %s, which routes to the Deployment's Service:\n%s", hardened.name, r.Stderr)
	}
	gone, added := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var o struct{ Type, Kind, Pod string }
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", line, err)
		}
		switch o.Kind {
		case "ingress-fenced", "ingress-removed":
			gone[o.Pod] = true
		case "ingress-added":
			added[o.Pod] = true
		}
	}
	if len(gone) != 2 || len(added) < 4 {
		t.Errorf("the proxy's view: servers going for %v, arriving for %v; want the 2 old pods going and all 4 pods seen served:\n%s\n%s", gone, added, r.Stdout, r.Stderr)
	}
	if len(loop.Failures) != 0 {
		t.Errorf("hardened: %d requests failed through the Ingress; want none", len(loop.Failures))
	}
	if n := strings.Count(r.Stdout, "the Ingress controller stopped sending the pod new requests at"); n != 2 {
		t.Errorf("%d old pods judged stopped by the proxy before SIGTERM, want 2:\n%s", n, r.Stdout)
	}
}

// TestRealDrainWatchReadsIngressController drains real-node-0 with
// `drain node --watch --ingress-api` under a naive and a hardened
// Deployment behind the Ingress controller, while the test's own loops
// send requests through it: the watch's lines show the proxy fencing or
// removing each evicted pod's server; the hardened Service loses none
// and its row says safe; where the naive one lost requests its row says
// RISK.
func TestRealDrainWatchReadsIngressController(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	defer uncordonNow(t, env)
	ns, naive, hardened := ingressApps(t, env, "dnaive", "dhard")
	stop := make(chan struct{})
	counts := loopsVia(t, stop, viaIngress, naive, hardened)
	time.Sleep(time.Second)
	res := e2e.RunKubectlFor(t, 4*time.Minute, []string{"KUBECONFIG=" + env.Kubeconfig},
		"graceful", "drain", "node", realnode.NodeName, "--ignore-daemonsets", "--watch", "--timeout", "3m",
		"--ingress-api", realnode.IngressAPI())
	uncordonNow(t, env)
	time.Sleep(3 * time.Second) // the replacements reach the proxy (its 2 s throttle)
	close(stop)
	got := counts()
	defer logDrain(t, res, got)
	out := res.Stdout + res.Stderr
	if n := strings.Count(out, "Ingress controller fenced the pod's server") + strings.Count(out, "Ingress controller removed the pod's server"); n < 2 {
		t.Errorf("%d lines of the proxy fencing or removing a server, want one for each evicted pod at least", n)
	}
	// The watch names the Ingress that routes to each workload, as watch
	// pod does.
	for _, app := range []string{naive.name, hardened.name} {
		if want := ns + "/Deployment/" + app + ": routed to by Ingress " + app + " (Service " + app; !strings.Contains(out, want) {
			t.Errorf("the drain's watch does not say %q", want)
		}
	}
	if n := len(got[hardened.name].Failures); n != 0 {
		t.Errorf("the hardened Service lost %d of %d requests through the Ingress", n, got[hardened.name].Sent)
	}
	checkSafeRow(t, out, ns, hardened.name)
	if len(got[naive.name].Failures) > 0 {
		if w := workloadWord(out, ns, naive.name); w != "RISK" {
			t.Errorf("the watch's row for %s says %q, want RISK (the test's loop saw %d failed requests)", naive.name, w, len(got[naive.name].Failures))
		}
	}
}

// TestWatchPodNamesTheProxyWhenItIsTheSlowOne: a pod whose preStop (1 s)
// outlasts kube-proxy's convergence but not the Ingress controller's. The
// test changes another Ingress of the namespace, waits until the proxy
// runs that change, and deletes the pod at once: its 2 s throttle then
// holds the pod's fencing back for nearly 2 s (docs/ingress.md). The
// test's own loops send requests to the pod's Service both through
// kube-proxy (its ClusterIP) and through the proxy while `watch pod
// --ingress-api` follows. Once a run shows the proxy's own loss (a 502
// through it, none through kube-proxy; at most three runs), the verdict
// must name the proxy: a race with it, or that the order cannot be told;
// never that it stopped first.
func TestWatchPodNamesTheProxyWhenItIsTheSlowOne(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	ns := ingressNamespace(t, env)
	name := fmt.Sprintf("short-%d", time.Now().UnixNano()%100000)
	app := createRealApp(t, env, ns, name, 2, realnode.PodOpts{SigtermAction: "exit",
		PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}})
	t.Cleanup(func() { deleteRealApp(env, ns, name) })
	createIngress(t, env, ns, name, "/"+name)
	churn := ingressTo(name+"-churn", name, "/"+name+"-c0")
	if _, err := env.Client.NetworkingV1().Ingresses(ns).Create(context.Background(), churn, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.NetworkingV1().Ingresses(ns).Delete(context.Background(), churn.Name, metav1.DeleteOptions{})
	})
	for attempt := 1; attempt <= 3; attempt++ {
		waitSpread(t, env, ns, 2, app)
		waitIngressServers(t, ns, name, 2)
		run := shortPreStopRun(t, env, ns, app, churn.Name, attempt)
		ing, direct, findings := run.ing, run.direct, strings.Join(run.v.Findings, "\n")
		t.Logf("run %d: through the proxy %d requests, %d failed %v; through kube-proxy %d, %d failed %v; verdict:\n%s",
			attempt, ing.Sent, len(ing.Failures), ing.Failures, direct.Sent, len(direct.Failures), direct.Failures, findings)
		if strings.Contains(findings, "the Ingress controller stopped sending the pod new requests at") && len(ing.Failures) > 0 {
			t.Fatalf("requests failed through the proxy, yet the verdict says it stopped first")
		}
		checkProxyAttribution(t, run)
		if len(ing.Failures) == 0 || len(direct.Failures) > 0 {
			continue // not the proxy's own loss: try again
		}
		if !strings.Contains(findings, "race with the Ingress controller") && !strings.Contains(findings, "came before the Ingress controller stopped") {
			t.Errorf("the proxy alone lost requests, but the verdict does not name it")
		}
		return
	}
	t.Fatalf("in 3 runs the proxy never lost a request that kube-proxy did not: the throttle did not hold the proxy back")
}

// checkProxyAttribution holds the verdict's reading of the proxy's access
// log (--probe-access-log) to the test's own reading of it: every failed
// probe request it sent to the deleted pod's address is counted as sent
// there by the proxy, and none is missing from the log.
func checkProxyAttribution(t *testing.T, run shortRun) {
	t.Helper()
	own := 0
	for _, line := range strings.Split(run.accessLog, "\n") {
		var l struct {
			RequestPath      string
			DownstreamStatus int
			ServiceAddr      string
		}
		if json.Unmarshal([]byte(line), &l) == nil && strings.Contains(l.RequestPath, "kubectl-graceful-probe=") &&
			l.DownstreamStatus >= 400 && l.ServiceAddr == run.podAddr {
			own++
		}
	}
	p := run.v.Requests.Proxy
	t.Logf("the proxy's access log: %d marked failures sent to %s; the verdict: %+v", own, run.podAddr, p)
	if own == 0 {
		return
	}
	if p == nil || p.ToTerminated != own || p.NotLogged != 0 {
		t.Fatalf("the verdict's access-log counts %+v, the proxy's own log %d failures sent to %s", p, own, run.podAddr)
	}
	if want := fmt.Sprintf("%d sent by the proxy to the terminating pod (%s)", own, run.podAddr); !strings.Contains(strings.Join(run.v.Findings, "\n"), want) {
		t.Errorf("the verdict does not say %q:\n%s", want, strings.Join(run.v.Findings, "\n"))
	}
}

// shortRun is one run of shortPreStopRun: the test's own counts, the
// watch's verdict, the deleted pod's address and the access log's lines
// written during the run.
type shortRun struct {
	ing, direct *e2e.Requests
	v           ingressVerdictJSON
	podAddr     string
	accessLog   string
}

// shortPreStopRun follows one pod of app with watch pod --ingress-api
// while the test's loops run through the proxy and through kube-proxy;
// once the watch waits, it changes the churn Ingress's path, waits until
// the proxy runs it and deletes the pod. It returns both counts and the
// verdict's findings.
func shortPreStopRun(t *testing.T, env *e2e.Env, ns string, app realApp, churn string, run int) shortRun {
	t.Helper()
	ctx := context.Background()
	pod := onePodOf(t, env, ns, app.name)
	obj, err := env.Client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	logBefore, err := os.ReadFile(realnode.IngressAccessLog())
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	counts := loopsVia(t, stop, viaIngress, app)
	directCounts := loops(t, stop, app)
	_, url := viaIngress(app)
	w := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "pod", pod, "-n", ns, "--settle", "2s",
		"--ingress-api", realnode.IngressAPI(), "--probe", url, "--probe-rate", "50", "--probe-access-log", realnode.IngressAccessLog(), "-o", "json")
	w.WaitOutput(t, time.Minute, "waiting for pod")
	path := fmt.Sprintf("/%s-c%d", app.name, run)
	ing, err := env.Client.NetworkingV1().Ingresses(ns).Get(ctx, churn, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ing.Spec.Rules[0].HTTP.Paths[0].Path = path
	if _, err := env.Client.NetworkingV1().Ingresses(ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, 10*time.Second, "the proxy running the churn Ingress's new path", func() bool {
		resp, err := http.Get(realnode.IngressAPI() + "/api/http/routers?per_page=10000")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(body), path+`\"`) // PathPrefix("PATH"), JSON-escaped
	})
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, pod, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r := w.Wait()
	time.Sleep(time.Second)
	close(stop)
	logAfter, err := os.ReadFile(realnode.IngressAccessLog())
	if err != nil || len(logAfter) < len(logBefore) {
		t.Fatalf("the proxy's access log: %v (%d bytes, %d before)", err, len(logAfter), len(logBefore))
	}
	v, _ := ingressVerdict(t, r.Stdout)
	return shortRun{ing: counts()[app.name], direct: directCounts()[app.name], v: v,
		podAddr: net.JoinHostPort(obj.Status.PodIP, "8080"), accessLog: string(logAfter[len(logBefore):])}
}

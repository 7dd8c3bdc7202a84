package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// TestIngressControllerServesRealPods: the Ingress controller cluster-up
// starts (Traefik, docs/ingress.md) runs where it can reach the real
// nodes' pods and nothing else (a dial off the machine or to a kwok pod's
// made-up address finds no route), learns an Ingress of its namespace
// with a pod on each real node, and serves every request of the test's
// own bounded loop through it with the pods' own answer.
func TestIngressControllerServesRealPods(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	if _, err := http.Get(realnode.IngressAPI() + "/api/version"); err != nil {
		t.Fatalf("the Ingress controller does not answer (%v): make test builds it (make ingress) and cluster-up starts it", err)
	}
	checkIngressIsolated(t, env)
	ns := ingressNamespace(t, env)
	app := createRealApp(t, env, ns, fmt.Sprintf("l7-%d", time.Now().UnixNano()%100000), 2, hardenedOpts)
	t.Cleanup(func() { deleteRealApp(env, ns, app.name) })
	waitSpread(t, env, ns, 2, app)
	createIngress(t, env, ns, app.name, "/")
	servers := waitIngressServers(t, ns, app.name, 2)
	t.Logf("Traefik's servers for %s: %v", app.name, servers)

	// Bounded by its count: 200 requests, 10 ms apart.
	r := e2e.CountRequests(t, realnode.IngressIP, "http://"+realnode.IngressIP+"/", 10*time.Millisecond, 200, time.Minute, nil)
	if r.Sent < 200 || len(r.Failures) != 0 {
		t.Errorf("through the Ingress: %d requests, %d failed %v; want 200 answered", r.Sent, len(r.Failures), r.Failures)
	}
}

// TestIngressNaiveRolloutGets502s restarts a naive Deployment (exits at
// SIGTERM, no preStop) and a hardened one (preStop sleep 5 s, then drains)
// behind the Ingress controller while the test's own loops send requests
// through it: the proxy answers the naive one's clients 502 while it still
// sends to pods that have exited (the throttle holds the fencing back up
// to 2 s after the new pod's change, docs/ingress.md); the hardened one
// loses none.
func TestIngressNaiveRolloutGets502s(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	ns, naive, hardened := ingressApps(t, env, "naive", "hardened")
	type count struct {
		name string
		r    *e2e.Requests
	}
	counts, stop := make(chan count, 2), make(chan struct{})
	for _, a := range []realApp{naive, hardened} {
		go func() {
			url := "http://" + realnode.IngressIP + "/" + a.name
			counts <- count{a.name, e2e.CountRequests(t, realnode.IngressIP, url, 10*time.Millisecond, 6000, 90*time.Second, stop)}
		}()
	}
	time.Sleep(time.Second)
	kc := []string{"KUBECONFIG=" + env.Kubeconfig}
	for _, a := range []realApp{naive, hardened} {
		if r := e2e.RunKubectl(t, kc, "rollout", "restart", "-n", ns, "deployment/"+a.name); r.ExitCode != 0 {
			t.Fatalf("rollout restart %s: %s", a.name, r.Stderr)
		}
	}
	for _, a := range []realApp{naive, hardened} {
		if r := e2e.RunKubectl(t, kc, "rollout", "status", "-n", ns, "deployment/"+a.name, "--timeout", "90s"); r.ExitCode != 0 {
			t.Fatalf("rollout status %s: %s", a.name, r.Stderr)
		}
	}
	time.Sleep(7 * time.Second) // the hardened old pods' preStop and drain
	close(stop)
	got := map[string]*e2e.Requests{}
	for range 2 {
		c := <-counts
		got[c.name] = c.r
		t.Logf("%s: %d requests, %d failed %v", c.name, c.r.Sent, len(c.r.Failures), c.r.Failures)
	}
	if n := len(got[hardened.name].Failures); n != 0 {
		t.Errorf("hardened: %d requests failed through the Ingress; want none", n)
	}
	bad := 0
	for _, f := range got[naive.name].Failures {
		if strings.HasSuffix(f, "502 Bad Gateway") {
			bad++
		}
	}
	if bad == 0 {
		t.Errorf("naive: no 502 among %d failures of %d requests; want the proxy's 502s", len(got[naive.name].Failures), got[naive.name].Sent)
	}
}

// checkIngressIsolated dials, from the Ingress controller's network
// namespace, an address off the machine (TEST-NET-1, never routed) and a
// kwok pod's address: neither has a route there.
func checkIngressIsolated(t *testing.T, env *e2e.Env) {
	t.Helper()
	ns := env.Namespace(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kwok-pod"}, Spec: corev1.PodSpec{NodeName: "kwok-node-0",
		Containers: []corev1.Container{{Name: "app", Image: "made-up"}}}}
	if _, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kwokIP := ""
	e2e.WaitFor(t, time.Minute, "kwok giving its pod an address", func() bool {
		p, err := env.Client.CoreV1().Pods(ns).Get(context.Background(), pod.Name, metav1.GetOptions{})
		if err == nil && p.Status.PodIP != "" {
			kwokIP = p.Status.PodIP
			return true
		}
		time.Sleep(200 * time.Millisecond)
		return false
	})
	targets := []string{"192.0.2.1", kwokIP}
	for _, ip := range targets {
		out, err := exec.Command("nsenter", "--net="+realnode.IngressNetns(), "timeout", "3",
			"bash", "-c", "exec 3<>/dev/tcp/"+ip+"/80").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "Network is unreachable") {
			t.Errorf("a dial to %s from the Ingress controller's namespace: %v %s; want no route", ip, err, out)
		}
	}
}

// ingressApps creates a naive and a hardened Deployment of two pods, one
// on each real node, each behind an Ingress at /NAME, and waits until the
// proxy serves both pods of each.
func ingressApps(t *testing.T, env *e2e.Env, naiveName, hardenedName string) (string, realApp, realApp) {
	t.Helper()
	ns := ingressNamespace(t, env)
	suffix := fmt.Sprintf("-%d", time.Now().UnixNano()%100000)
	naive := createRealApp(t, env, ns, naiveName+suffix, 2, naiveOpts)
	hardened := createRealApp(t, env, ns, hardenedName+suffix, 2, hardenedOpts)
	for _, a := range []realApp{naive, hardened} {
		t.Cleanup(func() { deleteRealApp(env, ns, a.name) })
		createIngress(t, env, ns, a.name, "/"+a.name)
	}
	waitSpread(t, env, ns, 4, naive, hardened)
	for _, a := range []realApp{naive, hardened} {
		waitIngressServers(t, ns, a.name, 2)
	}
	return ns, naive, hardened
}

// ingressNamespace makes the namespace the Ingress controller serves,
// when missing. It stays: a namespace being deleted could not be made
// again by the next test at once; each test removes its own objects.
func ingressNamespace(t *testing.T, env *e2e.Env) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: realnode.IngressNamespace}}
	if _, err := env.Client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return ns.Name
}

// deleteRealApp removes what createRealApp and createIngress made.
func deleteRealApp(env *e2e.Env, ns, name string) {
	ctx, bg := context.Background(), metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &bg}
	_ = env.Client.NetworkingV1().Ingresses(ns).Delete(ctx, name, opts)
	_ = env.Client.PolicyV1().PodDisruptionBudgets(ns).Delete(ctx, name, opts)
	_ = env.Client.CoreV1().Services(ns).Delete(ctx, name, opts)
	_ = env.Client.AppsV1().Deployments(ns).Delete(ctx, name, opts)
}

// createIngress routes the paths under path to the Service name's port
// 80. It names no IngressClass: the controller runs without
// cluster-scoped reads and takes Ingresses without one.
func createIngress(t *testing.T, env *e2e.Env, ns, name, path string) {
	t.Helper()
	if _, err := env.Client.NetworkingV1().Ingresses(ns).Create(context.Background(), ingressTo(name, name, path), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// ingressTo is an Ingress name routing the paths under path to Service
// svc's port 80.
func ingressTo(name, svc, path string) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressSpec{
		Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &prefix, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}},
		}}}}}}
}

// waitIngressServers waits until Traefik's API lists want servers, none
// fenced, for the Service's port 80, and returns their URLs.
func waitIngressServers(t *testing.T, ns, svc string, want int) []string {
	t.Helper()
	url := realnode.IngressAPI() + "/api/http/services/" + ns + "-" + svc + "-80@kubernetes"
	var urls []string
	e2e.WaitFor(t, time.Minute, "Traefik serving "+svc+" with "+fmt.Sprint(want)+" servers", func() bool {
		var s struct {
			LoadBalancer struct {
				Servers []struct {
					URL    string `json:"url"`
					Fenced bool   `json:"fenced"`
				} `json:"servers"`
			} `json:"loadBalancer"`
		}
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(500 * time.Millisecond)
			return false
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&s) != nil {
			time.Sleep(500 * time.Millisecond)
			return false
		}
		urls = urls[:0]
		for _, sv := range s.LoadBalancer.Servers {
			if !sv.Fenced {
				urls = append(urls, sv.URL)
			}
		}
		return len(urls) == want
	})
	return urls
}

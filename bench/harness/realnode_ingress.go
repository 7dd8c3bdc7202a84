package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

const (
	realIngressP50 = "real node: EndpointSlice change to Traefik fencing the pod, median (beside: kube-proxy, same deletions)"
	realIngressP99 = "real node: EndpointSlice change to Traefik fencing the pod, p99 (beside: kube-proxy, same deletions)"
	realIngressRSS = "real node: Traefik idle RSS (the Ingress controller, docs/ingress.md), beside kube-proxy's"
	// ingressQuiet is the wait after the last change before a deletion:
	// past Traefik's 2 s providersThrottleDuration and kube-proxy's 1 s
	// minSyncPeriod, so that each delay is a change's own.
	ingressQuiet = 2500 * time.Millisecond
)

// ingressRows is the Traefik rows, not measured for reason.
func ingressRows(reason string) []Row {
	return []Row{notMeasured(realIngressP50, "informational", reason), notMeasured(realIngressP99, "informational", reason),
		notMeasured(realIngressRSS, "informational", reason)}
}

// realIngress deletes n pods of a 2-replica Deployment behind an Ingress
// in the namespace Traefik serves, one after the other, and measures for
// each, from the EndpointSlice watch showing its endpoint not ready, when
// Traefik's API showed its server fenced or gone and when kube-proxy's
// rules stopped sending to it (both polled every 2 ms); then Traefik's
// RSS. It leaves the namespace (the tests share it) and removes its own
// objects.
func (h *harness) realIngress(ctx context.Context, n int) []Row {
	pid, err := realnode.IngressPid()
	if err != nil {
		return ingressRows("no Ingress controller: " + err.Error())
	}
	ns := realnode.IngressNamespace
	ip, err := h.realDeployment(ctx, ns, 2, realnode.NodeName)
	defer h.deleteRealApp(ns)
	if err == nil {
		err = h.ingressTo(ctx, ns)
	}
	if err != nil {
		return ingressRows(err.Error())
	}
	var proxy, kp []time.Duration
	for i := 0; i < n; i++ {
		p, k, err := h.oneIngressPropagation(ctx, ns, ip)
		if err != nil {
			return ingressRows(err.Error())
		}
		proxy, kp = append(proxy, p), append(kp, k)
	}
	beside := func(p float64) string {
		return fmt.Sprintf("%s (kube-proxy %s; %d deletions)", ms(percentile(proxy, p)), ms(percentile(kp, p)), n)
	}
	return []Row{{What: realIngressP50, Ours: beside(50), Target: "informational", Met: "-"},
		{What: realIngressP99, Ours: beside(99), Target: "informational", Met: "-"},
		{What: realIngressRSS, Ours: mb(rssOf(pid)) + kubeProxyRSS(), Target: "informational", Met: "-"}}
}

// ingressTo routes /web to Service web's port 80, as the e2e tests do.
func (h *harness) ingressTo(ctx context.Context, ns string) error {
	prefix := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
		IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
			Path: "/web", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
	_, err := h.cs.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{})
	return err
}

// deleteRealApp removes Deployment, Service and Ingress web of ns.
func (h *harness) deleteRealApp(ns string) {
	ctx := context.Background()
	_ = h.cs.NetworkingV1().Ingresses(ns).Delete(ctx, "web", metav1.DeleteOptions{})
	_ = h.cs.CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{})
	_ = h.cs.AppsV1().Deployments(ns).Delete(ctx, "web", metav1.DeleteOptions{})
}

// oneIngressPropagation deletes one Ready pod, once both proxies send to
// it and nothing changed for ingressQuiet, and returns Traefik's delay
// and kube-proxy's from the endpoint's not-ready notification.
func (h *harness) oneIngressPropagation(ctx context.Context, ns, clusterIP string) (time.Duration, time.Duration, error) {
	pods, err := h.readyPods(ctx, ns, 2)
	if err != nil {
		return 0, 0, err
	}
	pod := pods[0]
	target, url := pod.Status.PodIP+" . 8080", "http://"+pod.Status.PodIP+":8080"
	service := realnode.IngressAPI() + "/api/http/services/" + ns + "-web-80@kubernetes"
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
		present, fenced := traefikServer(service, url)
		return present && !fenced && strings.Contains(kubeProxyRules(), target), nil
	}); err != nil {
		return 0, 0, fmt.Errorf("pod %s: not served by both Traefik and kube-proxy after 15 s", pod.Name)
	}
	time.Sleep(ingressQuiet)
	seen, err := h.notReadySeen(ctx, ns, pod)
	if err != nil {
		return 0, 0, err
	}
	traefikOut := pollUntil(func() bool { present, fenced := traefikServer(service, url); return !present || fenced })
	ruleGone := pollUntil(func() bool { return !strings.Contains(kubeProxyRules(), target) })
	if err := h.cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		return 0, 0, err
	}
	at := map[string]time.Time{}
	for _, c := range []struct {
		name string
		ch   <-chan time.Time
	}{{"endpoint not ready", seen}, {"Traefik fencing", traefikOut}, {"kube-proxy rule removal", ruleGone}} {
		select {
		case at[c.name] = <-c.ch:
		case <-time.After(20 * time.Second):
			return 0, 0, fmt.Errorf("pod %s: %s not seen within 20 s", pod.Name, c.name)
		}
	}
	_, err = h.readyPods(ctx, ns, 2) // the replacement, before the next deletion
	return at["Traefik fencing"].Sub(at["endpoint not ready"]), at["kube-proxy rule removal"].Sub(at["endpoint not ready"]), err
}

// pollUntil calls done every 2 ms for at most 15 s and sends the time it
// first returned true.
func pollUntil(done func() bool) <-chan time.Time {
	out := make(chan time.Time, 1)
	go func() {
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if done() {
				out <- time.Now()
				return
			}
		}
	}()
	return out
}

// traefikServer reads Traefik's service at url (its API) and reports
// whether it holds server and whether that server is fenced.
func traefikServer(service, server string) (present, fenced bool) {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(service)
	if err != nil {
		return true, false // not read: not counted as out
	}
	defer resp.Body.Close()
	var s struct {
		LoadBalancer struct {
			Servers []ingress.Server `json:"servers"`
		} `json:"loadBalancer"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&s) != nil {
		return resp.StatusCode != http.StatusNotFound, false
	}
	for _, sv := range s.LoadBalancer.Servers {
		if sv.URL == server {
			return true, sv.Fenced
		}
	}
	return false, false
}

// kubeProxyRSS is real-node-0's kube-proxy's RSS, for the cell beside
// Traefik's.
func kubeProxyRSS() string {
	procs, err := realnode.Processes(realnode.NodeName)
	if err != nil || len(procs["kube-proxy"]) == 0 {
		return ""
	}
	return " (kube-proxy " + mb(rssOf(procs["kube-proxy"][0])) + ")"
}

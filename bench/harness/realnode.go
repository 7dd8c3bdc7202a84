package harness

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

const (
	realStartRow  = "real node: start, nothing to Ready with kube-proxy healthy"
	realWarmRow   = "real node: make cluster-up, warm (cluster and real node reused)"
	realRSSRow    = "real node: idle RSS with 9 more test-app pods (kubelet, containerd, kube-proxy, shims)"
	realCPURow    = "real node: idle CPU with 9 more test-app pods"
	realStart1Row = "real-node-1: start, its containerd to Ready with kube-proxy healthy"
	realRSS1Row   = "real-node-1: idle RSS with 1 test-app pod (kubelet, containerd, kube-proxy, shim, API forwarder)"
	realCPU1Row   = "real-node-1: idle CPU with 1 test-app pod"
	realPropP50   = "real node: EndpointSlice change to kube-proxy rule, median"
	realPropP99   = "real node: EndpointSlice change to kube-proxy rule, p99"
	besideTheTest = "skipped at tiny scale: it runs beside the tests, which use the real node"
)

// realNode measures the real node (docs/real-node.md): its start from
// nothing, a warm `make cluster-up`, its idle cost with 9 test-app pods,
// and the propagation delay from an endpoint's EndpointSlice change to
// kube-proxy's rule over several deletions. The start and the idle cost
// are not measured at tiny scale: the smoke test runs beside tests that
// use the node.
func (h *harness) realNode(ctx context.Context) []Row {
	all := []string{realStartRow, realWarmRow, realRSSRow, realCPURow, realPropP50, realPropP99, realStart1Row, realRSS1Row, realCPU1Row}
	rows := func(reason string) []Row {
		out := make([]Row, len(all))
		for i, w := range all {
			out[i] = notMeasured(w, "informational", reason)
		}
		return out
	}
	if !h.selected("realnode") {
		return append(rows(notSelected), ingressRows(notSelected)...)
	}
	cs, err := localcluster.Client(h.cfg.Kubeconfig)
	if err == nil {
		err = localcluster.NodeReady(ctx, cs, realnode.NodeName)
	}
	if err != nil {
		return append(rows("no real node: "+err.Error()), ingressRows("no real node")...)
	}
	out := rows(besideTheTest)
	tiny := h.cfg.Scale.Name == "tiny"
	if !tiny {
		out[0], out[6] = h.realStart(ctx)
	}
	out[1] = h.realWarmUp(ctx)
	if !tiny {
		out[2], out[3] = h.realIdle(ctx, realnode.NodeName, 9, realRSSRow, realCPURow)
		out[7], out[8] = h.realIdle(ctx, realnode.SecondNodeName, 1, realRSS1Row, realCPU1Row)
	}
	n := 10
	if tiny {
		n = 2
	}
	out[4], out[5] = h.realPropagation(ctx, n)
	if tiny {
		return append(out, ingressRows(besideTheTest)...)
	}
	return append(out, h.realIngress(ctx, 50)...)
}

// realStart stops the real nodes and starts them again, timed as a whole
// and, for real-node-1, on its own.
func (h *harness) realStart(ctx context.Context) (Row, Row) {
	fail := func(err error) (Row, Row) {
		return notMeasured(realStartRow, "informational", err.Error()), notMeasured(realStart1Row, "informational", err.Error())
	}
	opts, err := localcluster.DefaultOptions(h.cfg.RepoRoot, h.cfg.Log)
	if err != nil {
		return fail(err)
	}
	bins, err := localcluster.EnsureNodeBinaries(opts.CacheDir, h.cfg.Log)
	if err != nil {
		return fail(err)
	}
	if err := realnode.Down(ctx, opts.Name, h.cfg.Log); err != nil {
		return fail(err)
	}
	var second time.Duration
	start := time.Now()
	err = realnode.Up(ctx, realnode.Options{RepoRoot: h.cfg.RepoRoot, Cluster: opts.Name, Kubeconfig: opts.KubeconfigPath(),
		Kubelet: bins["kubelet"], KubeProxy: bins["kube-proxy"], Log: h.cfg.Log,
		Started: func(node string, took time.Duration) {
			if node == realnode.SecondNodeName {
				second = took
			}
		}})
	took := time.Since(start)
	if err != nil {
		return fail(err)
	}
	return Row{What: realStartRow, Ours: secs(took) + " (both nodes; images built and imported included)", Target: "informational", Met: "-"},
		Row{What: realStart1Row, Ours: secs(second) + " (images imported included)", Target: "informational", Met: "-"}
}

// realWarmUp times `make cluster-up`'s command on the running cluster.
func (h *harness) realWarmUp(ctx context.Context) Row {
	cmd := exec.CommandContext(ctx, "go", "run", "./hack/cluster", "up")
	cmd.Dir = h.cfg.RepoRoot
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil || !strings.Contains(string(out), "real nodes "+realnode.NodeName) {
		return notMeasured(realWarmRow, "informational", fmt.Sprintf("cluster-up: %v: %s", err, hostproc.Tail(string(out), 3)))
	}
	return Row{What: realWarmRow, Ours: secs(took), Target: "informational", Met: "-"}
}

// realIdle runs pods test-app pods on node, lets them settle, and sums
// the node's processes' RSS and CPU over 10 s.
func (h *harness) realIdle(ctx context.Context, node string, pods int32, rssRow, cpuRow string) (Row, Row) {
	fail := func(err error) (Row, Row) {
		return notMeasured(rssRow, "informational", err.Error()), notMeasured(cpuRow, "informational", err.Error())
	}
	ns := h.cfg.Scale.Fixture.Name + "-" + node + "-idle"
	if _, err := h.realDeployment(ctx, ns, pods, node); err != nil {
		return fail(err)
	}
	defer h.deleteNamespace(ns)
	time.Sleep(5 * time.Second)
	procs, err := realnode.Processes(node)
	if err != nil {
		return fail(err)
	}
	var pids []int
	for _, ps := range procs {
		pids = append(pids, ps...)
	}
	cpu0 := cpuTicks(pids)
	start := time.Now()
	time.Sleep(10 * time.Second)
	cpu := float64(cpuTicks(pids)-cpu0) / 100 / time.Since(start).Seconds() // USER_HZ is 100 on Linux
	var rss int64
	for _, p := range pids {
		rss += rssOf(p)
	}
	onNode, err := h.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return fail(err)
	}
	detail := fmt.Sprintf(" (%d pods on the node; %d processes, %d of them shims)", len(onNode.Items), len(pids), len(procs["shims"]))
	return Row{What: rssRow, Ours: mb(rss) + detail, Target: "informational", Met: "-"},
		Row{What: cpuRow, Ours: fmt.Sprintf("%.1f %% of a core", cpu*100), Target: "informational", Met: "-"}
}

// realPropagation deletes n pods of a 2-replica Deployment one after the
// other and measures, for each, from the EndpointSlice watch showing its
// endpoint not ready to kube-proxy's nftables rules no longer sending to
// it (polled every few ms).
func (h *harness) realPropagation(ctx context.Context, n int) (Row, Row) {
	fail := func(err error) (Row, Row) {
		return notMeasured(realPropP50, "informational", err.Error()), notMeasured(realPropP99, "informational", err.Error())
	}
	ns := h.cfg.Scale.Fixture.Name + "-realnode-prop"
	ip, err := h.realDeployment(ctx, ns, 2, realnode.NodeName)
	if err != nil {
		return fail(err)
	}
	defer h.deleteNamespace(ns)
	var delays []time.Duration
	for i := 0; i < n; i++ {
		d, err := h.onePropagation(ctx, ns, ip)
		if err != nil {
			return fail(err)
		}
		delays = append(delays, d)
	}
	p50, p99 := percentile(delays, 50), percentile(delays, 99)
	return Row{What: realPropP50, Ours: ms(p50) + fmt.Sprintf(" (%d deletions)", n), Target: "informational", Met: "-"},
		Row{What: realPropP99, Ours: ms(p99), Target: "informational", Met: "-"}
}

// onePropagation deletes one Ready pod and times its rule's removal from
// the endpoint's not-ready notification.
func (h *harness) onePropagation(ctx context.Context, ns, clusterIP string) (time.Duration, error) {
	pods, err := h.readyPods(ctx, ns, 2)
	if err != nil {
		return 0, err
	}
	pod := pods[0]
	target := pod.Status.PodIP + " . 8080"
	// A pod just Ready reaches kube-proxy's rules a sync later.
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return strings.Contains(kubeProxyRules(), target), nil
	}); err != nil {
		return 0, fmt.Errorf("kube-proxy has no rule for %s after 10 s", pod.Status.PodIP)
	}
	// kube-proxy syncs at most once per minSyncPeriod (1 s): a change
	// within 1 s of the last sync waits for it (measured: 989 ms median
	// when each deletion followed the replacement's endpoint at once).
	// The row is the delay of a change on its own.
	time.Sleep(1500 * time.Millisecond)
	sliceSeen, err := h.notReadySeen(ctx, ns, pod)
	if err != nil {
		return 0, err
	}
	ruleGone := pollUntil(func() bool { return !strings.Contains(kubeProxyRules(), target) })
	if err := h.cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		return 0, err
	}
	var seen, gone time.Time
	for seen.IsZero() || gone.IsZero() {
		select {
		case seen = <-sliceSeen:
		case gone = <-ruleGone:
		case <-time.After(20 * time.Second):
			return 0, fmt.Errorf("pod %s: endpoint change or rule removal not seen within 20 s", pod.Name)
		}
	}
	_, err = h.readyPods(ctx, ns, 2) // the replacement, before the next deletion
	return gone.Sub(seen), err
}

// notReadySeen watches the EndpointSlices of Service web in ns and sends
// the time one first shows pod's endpoint not ready; the watch ends then,
// or with ctx.
func (h *harness) notReadySeen(ctx context.Context, ns string, pod corev1.Pod) (<-chan time.Time, error) {
	w, err := h.cs.DiscoveryV1().EndpointSlices(ns).Watch(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
	if err != nil {
		return nil, err
	}
	seen := make(chan time.Time, 1)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			s, ok := ev.Object.(*discoveryv1.EndpointSlice)
			if !ok {
				continue
			}
			for _, ep := range s.Endpoints {
				if ep.TargetRef != nil && ep.TargetRef.UID == pod.UID && ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					seen <- time.Now()
					return
				}
			}
		}
	}()
	return seen, nil
}

// kubeProxyRules returns the DNAT lines of kube-proxy's nftables table.
func kubeProxyRules() string {
	out, _ := exec.Command("nft", "list", "table", "ip", "kube-proxy").Output()
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "dnat ip to") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// realDeployment creates namespace ns (or uses it, when it exists) with Deployment web of replicas
// test-app pods on the real node named node and Service web, waits until
// they are Ready and the ClusterIP answers, and returns the ClusterIP.
func (h *harness) realDeployment(ctx context.Context, ns string, replicas int32, node string) (string, error) {
	if _, err := h.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	labels := map[string]string{"app": "web"}
	spec := realnode.PodSpec(realnode.PodOpts{SigtermAction: "exit"})
	if node != realnode.NodeName {
		realnode.Spread(&spec, labels)
		spec.NodeSelector[corev1.LabelHostname] = node
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := h.cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		return err == nil, nil // the namespace's ServiceAccount comes a moment later
	})
	if err != nil {
		return "", fmt.Errorf("deployment in %s: %w", ns, err)
	}
	svc, err := h.cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	if _, err := h.readyPods(ctx, ns, int(replicas)); err != nil {
		return "", err
	}
	ip := svc.Spec.ClusterIP
	if err := realnode.CheckRoute(ip); err != nil {
		return "", err
	}
	c := http.Client{Timeout: time.Second}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		resp, err := c.Get("http://" + ip + "/")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	return ip, err
}

// readyPods waits for n Ready pods of ns that are not terminating.
func (h *harness) readyPods(ctx context.Context, ns string, n int) ([]corev1.Pod, error) {
	return localcluster.WaitReadyPods(ctx, h.cs, ns, n, 2*time.Minute)
}

func (h *harness) deleteNamespace(ns string) {
	_ = h.cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
}

// cpuTicks sums utime and stime (clock ticks) of pids from /proc.
func cpuTicks(pids []int) int64 {
	var total int64
	for _, p := range pids {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			total += u + st
		}
	}
	return total
}

// rssOf returns a process's resident set in bytes, 0 when it is gone.
func rssOf(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

package realnode_test

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// outside is a documentation address (TEST-NET-3): nothing is there, and
// this machine's default route would take a packet to it off the machine.
const outside = "203.0.113.7"

// kube-proxy programs every Service of the cluster, the kwok nodes' too:
// a ClusterIP whose endpoint is an address off the node is DNATed to it,
// and the default route would send the packet away. The guard must drop
// it. A safety table of the test's own, after the guard, drops and counts
// anything that got past it, and one before it counts that the packet did
// head out.
func TestGuardDropsWhatWouldLeave(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	defer e2e.GuardTest(t)()
	ns := env.Namespace(t)
	ctx := context.Background()
	svc, err := env.Client.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "away"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port, name, ready := int32(80), "http", true
	_, err = env.Client.DiscoveryV1().EndpointSlices(ns).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "away-1", Labels: map[string]string{discoveryv1.LabelServiceName: "away"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{outside}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	safety := `table inet kubectl-graceful-guard-test {
	chain before {
		type filter hook postrouting priority srcnat - 1; policy accept;
		ip daddr ` + outside + ` oifname != { "lo", "graceful0", "gracefulsvc0" } counter
	}
	chain after {
		type filter hook postrouting priority srcnat + 1; policy accept;
		ip daddr ` + outside + ` counter drop
	}
}
`
	if out, err := nft(safety, "-f", "-"); err != nil {
		t.Fatalf("safety table: %v: %s", err, out)
	}
	defer func() { _, _ = nft("", "delete", "table", "inet", "kubectl-graceful-guard-test") }()
	e2e.WaitFor(t, 30*time.Second, "kube-proxy's rule for the Service", func() bool {
		out, _ := nft("", "list", "table", "ip", "kube-proxy")
		return strings.Contains(out, outside)
	})
	if err := realnode.CheckRoute(svc.Spec.ClusterIP); err != nil {
		t.Fatal(err)
	}
	before, err := realnode.GuardDrops()
	if err != nil {
		t.Fatal(err)
	}
	c := http.Client{Timeout: 300 * time.Millisecond}
	if resp, err := c.Get("http://" + svc.Spec.ClusterIP + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("a request to %s got an answer: %s", outside, resp.Status)
	}
	after, _ := realnode.GuardDrops()
	headed, past := counters(t)
	if headed == 0 || past != 0 || after <= before {
		t.Errorf("packets heading off the machine %d, past the guard %d, guard drops %d -> %d: want some heading out, none past, the guard dropping them", headed, past, before, after)
	}
}

func nft(stdin string, args ...string) (string, error) {
	cmd := exec.Command("nft", args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// counters reads the safety table's two counters (before, after).
func counters(t *testing.T) (before, after int64) {
	t.Helper()
	byChain, err := realnode.TablePackets("inet", "kubectl-graceful-guard-test")
	if err != nil {
		t.Fatal(err)
	}
	return byChain["before"], byChain["after"]
}

// The machine's real node belongs to one cluster: another checkout's
// cluster-up is told whose it is, and the node is left as it was.
func TestUpRefusesAnotherClustersNode(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	var log strings.Builder
	err := realnode.Up(context.Background(), realnode.Options{Cluster: "graceful-another-checkout", Kubeconfig: env.Kubeconfig, Log: &log})
	var held *realnode.HeldError
	if !errors.As(err, &held) || held.Owner == "graceful-another-checkout" || !strings.Contains(err.Error(), "one set of real nodes per machine") {
		t.Fatalf("Up for another cluster: %v", err)
	}
	if log.Len() != 0 {
		t.Errorf("Up for another cluster did something: %s", log.String())
	}
	cs, err := localcluster.Client(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.NodeReady(context.Background(), cs, realnode.NodeName); err != nil {
		t.Errorf("the real node after another cluster's Up: %v", err)
	}
}

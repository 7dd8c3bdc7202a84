package drain_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// lbService creates a LoadBalancer Service for app=app whose AWS target
// group's deregistration delay is delay seconds, as the audit reads it.
func (f *fixture) lbService(app, delay string) {
	f.t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app, Annotations: map[string]string{
		"service.beta.kubernetes.io/aws-load-balancer-type":                    "external",
		"service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "deregistration_delay.timeout_seconds=" + delay}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": app},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	f.create(svc, func() error {
		_, err := f.env.Client.CoreV1().Services(f.ns).Create(f.ctx, svc, metav1.CreateOptions{})
		return err
	})
}

// lbMarks returns the node's exclusion label and our record of it.
func (f *fixture) lbMarks(node string) (label, record bool) {
	f.t.Helper()
	n, err := f.env.Client.CoreV1().Nodes().Get(f.ctx, node, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	_, label = n.Labels[corev1.LabelNodeExcludeBalancers]
	_, record = n.Annotations["kubectl-graceful.dev/excluded-from-lb"]
	return label, record
}

// --exclude-from-lb labels the node before the evictions and, its pods
// gone, waits out the deregistration delay of its LoadBalancer Service
// before reporting it drained; without the flag the preflight warns.
func TestDrainExcludeFromLBWaitsTheDelayE2E(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 1)
	f.lbService("web", "4")

	dry := f.drain(a, "--dry-run=client")
	expect(t, dry, 0, "[lb-not-excluded]", f.ns+"/web", "--exclude-from-lb labels it "+corev1.LabelNodeExcludeBalancers)

	start := time.Now()
	res := f.drain(a, "--exclude-from-lb")
	took := time.Since(start)
	expect(t, res, 0, "node "+a+" labelled "+corev1.LabelNodeExcludeBalancers+" by this drain",
		"load balancers: waited", "4 s deregistration delay of Service "+f.ns+"/web", "node "+a+" drained")
	if strings.Contains(res.Stdout, "[lb-not-excluded]") {
		t.Errorf("the preflight warns of the load balancers although --exclude-from-lb takes the node out of them")
	}
	if !strings.Contains(res.Stderr, "waiting") || !strings.Contains(res.Stderr, "before reporting it drained") {
		t.Errorf("stderr does not say the wait as it starts: %q", res.Stderr)
	}
	if took < 4*time.Second {
		t.Errorf("the drain took %s: less than the 4 s deregistration delay counted from the label", took)
	}
	if label, record := f.lbMarks(a); !label || !record {
		t.Errorf("after the drain: label %v, record %v; want both kept on the drained node", label, record)
	}
}

// A drain that fails with --uncordon-on-failure removes the label it set,
// and leaves one it found.
func TestDrainExcludeFromLBUndoneOnFailureE2E(t *testing.T) {
	t.Parallel()
	t.Run("set by the drain", func(t *testing.T) {
		t.Parallel()
		f, a := stuckNode(t)
		res := f.drain(a, "--exclude-from-lb", "--uncordon-on-failure", "--timeout", "3s")
		expect(t, res, 2, "node "+a+" labelled "+corev1.LabelNodeExcludeBalancers+" by this drain",
			"label "+corev1.LabelNodeExcludeBalancers+" removed from node "+a)
		if label, record := f.lbMarks(a); label || record {
			t.Errorf("after the failed drain: label %v, record %v; want both removed", label, record)
		}
	})
	t.Run("set by someone else", func(t *testing.T) {
		t.Parallel()
		f, a := stuckNode(t)
		if res := f.env.Kubectl(t, "label", "node", a, corev1.LabelNodeExcludeBalancers+"=true"); res.ExitCode != 0 {
			t.Fatal(res.Stderr)
		}
		res := f.drain(a, "--exclude-from-lb", "--uncordon-on-failure", "--timeout", "3s")
		if res.ExitCode != 2 || strings.Contains(res.Stdout, "by this drain") || strings.Contains(res.Stdout, "removed from node") {
			t.Errorf("exit %d; a label found on the node is claimed or removed:\n%s", res.ExitCode, res.Stdout)
		}
		if label, _ := f.lbMarks(a); !label {
			t.Errorf("the label another client set was removed")
		}
	})
}

// stuckNode is a fresh node whose one pod a budget never lets go.
func stuckNode(t *testing.T) (*fixture, string) {
	f := newFixture(t)
	a, _ := f.onOneOfTwo("stuck", "stuck", 1)
	one := intstr.FromInt32(1)
	f.pdb("stuck", "stuck", &one, nil, nil, 1)
	return f, a
}

// lbServiceProvisioned creates lbService's Service for app with policy as
// its externalTrafficPolicy and gives it a load balancer
// (status.loadBalancer.ingress), as a cloud provider would.
func (f *fixture) lbServiceProvisioned(app, delay string, policy corev1.ServiceExternalTrafficPolicy) {
	f.t.Helper()
	f.lbService(app, delay)
	svcs := f.env.Client.CoreV1().Services(f.ns)
	svc, err := svcs.Get(f.ctx, app, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	svc.Spec.ExternalTrafficPolicy = policy
	if svc, err = svcs.Update(f.ctx, svc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: app + ".elb.example.com"}}
	if _, err := svcs.UpdateStatus(f.ctx, svc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// A LoadBalancer Service with externalTrafficPolicy Cluster and node
// targets sends through every node: --exclude-from-lb waits its delay
// although none of its pods ran on the node. One with Local, or one
// still pending (no load balancer), is not waited for.
func TestDrainExcludeFromLBClusterPolicyE2E(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 1)
	// Below TestDrainExcludeFromLBWaitsTheDelayE2E's 4 s, which runs at
	// the same time and would see this Service too.
	f.lbServiceProvisioned("elsewhere", "3", corev1.ServiceExternalTrafficPolicyCluster)
	f.lbServiceProvisioned("local", "30", corev1.ServiceExternalTrafficPolicyLocal)
	f.lbService("pending", "30")

	start := time.Now()
	res := f.drain(a, "--exclude-from-lb")
	took := time.Since(start)
	expect(t, res, 0, "3 s deregistration delay of Service "+f.ns+"/elsewhere", "externalTrafficPolicy Cluster: through every node", "node "+a+" drained")
	if took < 3*time.Second || took > 25*time.Second {
		t.Errorf("the drain took %s: want the 3 s delay of the Cluster-policy Service, not the 30 s of the Local or pending ones", took)
	}
}

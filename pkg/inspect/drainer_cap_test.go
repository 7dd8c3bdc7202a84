package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The shutdown (preStop 10 s + app 5 s assumed + an NLB's 300 s default
// deregistration delay) is compared with each cap given; none given, the
// check is silent.
func TestShutdownExceedsDrainerCap(t *testing.T) {
	nlb := func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeLoadBalancer
		s.Annotations = map[string]string{awsLBType: "external"}
	}
	objs := []*corev1.Service{service("web", app("web"), nlb)}
	opts := DefaultOptions()
	if got := runWith("shutdown-exceeds-drainer-cap", Version{1, 37}, opts, deploy("web"), objs[0]); len(got) != 0 {
		t.Fatalf("no cap given, findings %v", got)
	}
	opts.DrainerCaps = []DrainerCap{{Seconds: 120, Name: "--drainer-cap"}, {Seconds: 600, Name: "cluster-autoscaler"}}
	got := runWith("shutdown-exceeds-drainer-cap", Version{1, 37}, opts, deploy("web"), objs[0])
	if len(got) != 1 {
		t.Fatalf("findings %v, want one: the 120 s cap only", got)
	}
	for _, want := range []string{"preStop 10 s + app shutdown 5 s", "load balancer deregistration 300 s", "= 315 s, more than the --drainer-cap cap of 120 s: the last 195 s are cut"} {
		if !strings.Contains(got[0].Message, want) {
			t.Errorf("message %q lacks %q", got[0].Message, want)
		}
	}
	if got := runWith("shutdown-exceeds-drainer-cap", Version{1, 37}, opts, deploy("web")); len(got) != 0 {
		t.Errorf("without the load balancer, 15 s fits both caps: findings %v", got)
	}
	// kubernetes/kubernetes#94435: a 1200 s grace period under
	// cluster-autoscaler's 600 s cap, no shutdown time declared.
	got = runWith("shutdown-exceeds-drainer-cap", Version{1, 37}, opts, deploy("web", grace(1200)))
	if len(got) != 2 || !strings.Contains(got[1].Message, "terminationGracePeriodSeconds is 1200 s, more than the cluster-autoscaler cap of 600 s: a drain by it ends the pod at 600 s") {
		t.Errorf("findings %v, want both caps named, the 600 s one for the grace period itself", got)
	}
}

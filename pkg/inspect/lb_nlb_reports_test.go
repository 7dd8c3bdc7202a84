package inspect

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNLBIPLateDeregistration(t *testing.T) {
	nlb := func(targets string) *corev1.Service {
		return service("web", app("web"), func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeLoadBalancer
			s.Annotations = map[string]string{awsLBType: "external", awsNLBTargetType: targets}
		})
	}
	runCases(t, "nlb-ip-late-deregistration", []checkCase{
		{"ip targets, preStop 10 s", objs(deploy("web"), nlb("ip")), 1, "about 120 s after its deregistration starts, longer than this preStop delay (10 s)"},
		{"ip targets, preStop 130 s", objs(deploy("web", preStop(sleepHook(130)), grace(180)), nlb("ip")), 0, ""},
		{"instance targets", objs(deploy("web"), nlb("instance")), 0, ""},
		{"no load balancer", objs(deploy("web"), web), 0, ""},
	})
}

package inspect

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A gRPC server behind a headless Service: clients resolve the Service in
// DNS and dial pod IPs. DNS lists only ready pods and drops terminating
// ones, so readiness and preStop matter as for any Service.
func TestHeadlessServiceCarriesTraffic(t *testing.T) {
	grpc := func(d *appsv1.Deployment) {
		c := &d.Spec.Template.Spec.Containers[0]
		c.Name, c.Ports = "server", []corev1.ContainerPort{{Name: "grpc", ContainerPort: 50051}}
		c.ReadinessProbe, c.Lifecycle = nil, nil
	}
	headless := func(mods ...func(*corev1.Service)) *corev1.Service {
		return service("greeter", app("greeter"), append([]func(*corev1.Service){func(s *corev1.Service) {
			s.Spec.ClusterIP = corev1.ClusterIPNone
			s.Spec.Ports = []corev1.ServicePort{{Name: "grpc", Port: 50051, TargetPort: intstr.FromInt32(50051)}}
		}}, mods...)...)
	}
	ids := func(objs ...any) map[string]bool {
		inv := &Inventory{Version: Version{1, 37}}
		for _, o := range objs {
			switch o := o.(type) {
			case *appsv1.Deployment:
				inv.Add(o, nil)
			case *corev1.Service:
				inv.Add(o, nil)
			}
		}
		out := map[string]bool{}
		for _, f := range Audit(inv, DefaultOptions()).Findings {
			out[f.Check] = true
		}
		return out
	}
	got := ids(deploy("greeter", grpc), headless())
	for _, want := range []string{"missing-readiness-probe", "missing-prestop"} {
		if !got[want] {
			t.Errorf("gRPC Deployment behind a headless Service on 50051: %s missing from %v", want, got)
		}
	}
	for name, svc := range map[string]*corev1.Service{
		"metrics-only headless Service": headless(func(s *corev1.Service) { s.Spec.Ports[0].Name = "http-metrics" }),
		"metrics by targetPort name": headless(func(s *corev1.Service) {
			s.Spec.Ports[0].Name, s.Spec.Ports[0].TargetPort = "scrape", intstr.FromString("metrics")
		}),
		"headless Service without ports (pod names only)": headless(func(s *corev1.Service) { s.Spec.Ports = nil }),
		"publishNotReadyAddresses (peer discovery)":       headless(func(s *corev1.Service) { s.Spec.PublishNotReadyAddresses = true }),
	} {
		got := ids(deploy("greeter", grpc), svc)
		if got["missing-readiness-probe"] || got["missing-prestop"] {
			t.Errorf("%s: the workload is not behind it for traffic, got %v", name, got)
		}
	}
}

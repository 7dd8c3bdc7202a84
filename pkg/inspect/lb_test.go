package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
)

// Every documented way to put an AWS or GKE load balancer in front of a
// Service's pods, one case each (docs/audit.md, "Load balancer forms").

func lbService(annotations map[string]string, mods ...func(*corev1.Service)) *corev1.Service {
	return service("web", app("web"), append([]func(*corev1.Service){func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeLoadBalancer
		s.Annotations = annotations
	}}, mods...)...)
}

func albIngress(annotations map[string]string, class *string, backend string) *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "front", Namespace: "shop", Annotations: annotations},
		Spec: networkingv1.IngressSpec{IngressClassName: class, Rules: []networkingv1.IngressRule{{
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: backend,
					Port: networkingv1.ServiceBackendPort{Name: "use-annotation"}}}}}}}}}}}
}

func TestLBFormsAWSService(t *testing.T) {
	attrs := func(n string) string { return "deregistration_delay.timeout_seconds=" + n }
	runCases(t, "lb-deregistration-exceeds-grace", []checkCase{
		{"in-tree nlb: instance targets, AWS default", objs(deploy("web"), lbService(map[string]string{awsLBType: "nlb"})), 1,
			"AWS NLB target group (in-tree cloud provider, instance targets, AWS default) deregistration delay is 300 s but the grace period is 30 s: nodes are the targets"},
		{"in-tree Classic ELB, draining off (its default)", objs(deploy("web"), lbService(map[string]string{"service.beta.kubernetes.io/aws-load-balancer-internal": "true"})), 0, ""},
		{"in-tree Classic ELB, draining on, AWS default timeout", objs(deploy("web"), lbService(map[string]string{clbDrainingEnabled: "true"})), 1,
			"AWS Classic ELB connection draining (in-tree cloud provider, instance targets) deregistration delay is 300 s"},
		{"in-tree Classic ELB, draining 20 s, preStop 10 s", objs(deploy("web"), lbService(map[string]string{clbDrainingEnabled: "true", clbDrainingTimeout: "20"})), 1,
			"preStop delay 10 s is shorter than the AWS Classic ELB"},
		{"controller external, ip targets", objs(deploy("web"), lbService(map[string]string{awsLBType: "external", awsNLBTargetType: "ip"})), 1,
			"AWS NLB target group (AWS Load Balancer Controller, ip targets, AWS default: no deregistration_delay.timeout_seconds) deregistration delay is 300 s but the grace period is 30 s: pods are the targets"},
		{"controller external, instance targets", objs(deploy("web"), lbService(map[string]string{awsLBType: "external", awsNLBTargetType: "instance", nlbTargetGroupAttributes: attrs("60")})), 1,
			"(AWS Load Balancer Controller, instance targets) deregistration delay is 60 s"},
		{"controller nlb-ip (older form)", objs(deploy("web"), lbService(map[string]string{awsLBType: "nlb-ip"})), 1, "ip targets"},
		{"loadBalancerClass service.k8s.aws/nlb", objs(deploy("web"), lbService(nil, func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To(awsNLBClass) })), 1,
			"AWS Load Balancer Controller, instance targets"},
		{"another controller's loadBalancerClass", objs(deploy("web"), lbService(map[string]string{awsLBType: "nlb"}, func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To("example.com/lb") })), 0, ""},
		{"plain LoadBalancer, no cloud said", objs(deploy("web"), lbService(nil)), 0, ""},
		{"delay 8 s within grace and preStop 10 s", objs(deploy("web"), lbService(map[string]string{awsLBType: "external", nlbTargetGroupAttributes: attrs("8")})), 0, ""},
	})
}

func TestLBFormsALBIngress(t *testing.T) {
	ip := func(s *corev1.Service) { s.Annotations = map[string]string{albTargetType: "ip"} }
	svcAttrs := func(s *corev1.Service) {
		s.Annotations = map[string]string{albTargetGroupAttributes: "deregistration_delay.timeout_seconds=45"}
	}
	forward := `{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"web","servicePort":"80","weight":100}]}}`
	runCases(t, "lb-deregistration-exceeds-grace", []checkCase{
		{"ingressClassName alb", objs(deploy("web"), web, albIngress(nil, ptr.To("alb"), "web")), 1,
			"AWS ALB target group (Ingress front, instance targets, AWS default: no deregistration_delay.timeout_seconds) deregistration delay is 300 s"},
		{"kubernetes.io/ingress.class annotation", objs(deploy("web"), web, albIngress(map[string]string{"kubernetes.io/ingress.class": "alb"}, nil, "web")), 1, "AWS ALB target group"},
		{"group.name under a custom IngressClass", objs(deploy("web"), web, albIngress(map[string]string{albGroupName: "shared"}, ptr.To("internal-alb"), "web")), 1,
			"Ingress front, group shared"},
		{"target-type ip on the Service", objs(deploy("web"), service("web", app("web"), ip), albIngress(nil, ptr.To("alb"), "web")), 1, "ip targets"},
		{"Service attributes win over the Ingress's", objs(deploy("web"), service("web", app("web"), svcAttrs),
			albIngress(map[string]string{albTargetGroupAttributes: "deregistration_delay.timeout_seconds=600"}, ptr.To("alb"), "web")), 1, "delay is 45 s but the grace period is 30 s"},
		{"forward action naming the Service", objs(deploy("web"), web, albIngress(map[string]string{albActionPrefix + "split": forward}, ptr.To("alb"), "split")), 1, "AWS ALB target group"},
		{"nginx Ingress", objs(deploy("web"), web, albIngress(nil, ptr.To("nginx"), "web")), 0, ""},
	})
}

func TestLBFormsTargetGroupBinding(t *testing.T) {
	tgb := func(name, svc, typ string, labels map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "elbv2.k8s.aws/v1beta1", "kind": "TargetGroupBinding",
			"metadata": map[string]any{"name": name, "namespace": "shop"},
			"spec":     map[string]any{"serviceRef": map[string]any{"name": svc, "port": int64(80)}, "targetGroupARN": "arn:aws:elasticloadbalancing:x", "targetType": typ}}}
		u.SetLabels(labels)
		return u
	}
	audit := func(us ...*unstructured.Unstructured) []Finding {
		inv := &Inventory{Version: Version{1, 37}}
		inv.Add(deploy("web"), nil)
		inv.Add(web, nil)
		for _, u := range us {
			if !inv.addLoadBalancerObject(u) {
				t.Fatalf("%s not filed", u.GetName())
			}
		}
		var out []Finding
		for _, f := range Audit(inv, DefaultOptions()).Findings {
			if f.Check == "lb-deregistration-exceeds-grace" {
				out = append(out, f)
			}
		}
		return out
	}
	got := audit(tgb("web-tg", "web", "ip", nil))
	if len(got) != 1 || !strings.Contains(got[0].Message, "TargetGroupBinding web-tg (set outside the cluster; AWS default assumed) deregistration delay is 300 s") ||
		!strings.Contains(got[0].Message, "pods are the targets") {
		t.Errorf("hand-made binding: %+v", got)
	}
	if got := audit(tgb("k8s-shop-web-123", "web", "ip", map[string]string{"service.k8s.aws/stack-name": "web", "service.k8s.aws/stack-namespace": "shop"})); len(got) != 0 {
		t.Errorf("a binding the controller made for a Service is read through the Service's annotations, not assumed: %+v", got)
	}
	if got := audit(tgb("other", "api", "instance", nil)); len(got) != 0 {
		t.Errorf("binding of another Service: %+v", got)
	}
}

func TestLBFormsGKE(t *testing.T) {
	cases := []struct {
		name        string
		annotations map[string]string
		want        string
	}{
		{"default BackendConfig with NEG", map[string]string{gkeBackendConfig: `{"default":"drain"}`, gkeNEG: `{"ingress": true}`},
			"GKE BackendConfig drain connection draining (NEG: pods are the endpoints) deregistration delay is 60 s but the grace period is 30 s: pods are the targets"},
		{"per-port BackendConfig", map[string]string{gkeBackendConfig: `{"ports":{"http":"drain"}}`}, "GKE BackendConfig drain connection draining deregistration delay is 60 s"},
		{"beta annotation", map[string]string{gkeBackendConfigBeta: `{"default":"drain"}`}, "GKE BackendConfig drain"},
		{"no BackendConfig named", map[string]string{gkeNEG: `{"ingress": true}`}, ""},
	}
	for _, tc := range cases {
		inv := &Inventory{Version: Version{1, 37}}
		inv.Add(deploy("web"), nil)
		inv.Add(service("web", app("web"), func(s *corev1.Service) { s.Annotations = tc.annotations }), nil)
		bc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cloud.google.com/v1", "kind": "BackendConfig",
			"metadata": map[string]any{"name": "drain", "namespace": "shop"},
			"spec":     map[string]any{"connectionDraining": map[string]any{"drainingTimeoutSec": int64(60)}}}}
		inv.addLoadBalancerObject(bc)
		var got []Finding
		for _, f := range Audit(inv, DefaultOptions()).Findings {
			if f.Check == "lb-deregistration-exceeds-grace" {
				got = append(got, f)
			}
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s: %+v", tc.name, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0].Message, tc.want)):
			t.Errorf("%s: want %q, got %+v", tc.name, tc.want, got)
		}
	}
}

package inspect

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for test objects in namespace "shop", labelled app=NAME.

type deployOpt func(*appsv1.Deployment)

func deploy(name string, opts ...deployOpt) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, "tier": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "app", Image: "example/app:1",
					Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http")}}},
					Lifecycle:      &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 10}}},
				}}},
			},
			MinReadySeconds: 5,
		},
	}
	for _, o := range opts {
		o(d)
	}
	return d
}

func replicasOf(n int32) deployOpt { return func(d *appsv1.Deployment) { d.Spec.Replicas = &n } }
func grace(n int64) deployOpt {
	return func(d *appsv1.Deployment) { d.Spec.Template.Spec.TerminationGracePeriodSeconds = &n }
}
func preStop(h *corev1.LifecycleHandler) deployOpt {
	return func(d *appsv1.Deployment) {
		if h == nil {
			d.Spec.Template.Spec.Containers[0].Lifecycle = nil
			return
		}
		d.Spec.Template.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: h}
	}
}
func sleepHook(n int64) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: n}}
}
func execHook(cmd ...string) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}
}
func container(f func(*corev1.Container)) deployOpt {
	return func(d *appsv1.Deployment) { f(&d.Spec.Template.Spec.Containers[0]) }
}
func templateAnnotation(k, v string) deployOpt {
	return func(d *appsv1.Deployment) {
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		d.Spec.Template.Annotations[k] = v
	}
}
func strategy(s appsv1.DeploymentStrategy) deployOpt {
	return func(d *appsv1.Deployment) { d.Spec.Strategy = s }
}
func rolling(surge, unavailable string) appsv1.DeploymentStrategy {
	ms, mu := intstr.Parse(surge), intstr.Parse(unavailable)
	return appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &ms, MaxUnavailable: &mu}}
}

func service(name string, selector map[string]string, mods ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
		Spec: corev1.ServiceSpec{Selector: selector,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}},
	}
	for _, m := range mods {
		m(s)
	}
	return s
}

func app(name string) map[string]string { return map[string]string{"app": name} }

func pdbWith(name string, sel *metav1.LabelSelector, minAvailable, maxUnavailable string) *policyv1.PodDisruptionBudget {
	p := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel, UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow)}}
	if minAvailable != "" {
		v := intstr.Parse(minAvailable)
		p.Spec.MinAvailable = &v
	}
	if maxUnavailable != "" {
		v := intstr.Parse(maxUnavailable)
		p.Spec.MaxUnavailable = &v
	}
	return p
}

func matchApp(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: app(name)}
}

func hpa(target string, min int32) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: target, Namespace: "shop"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: &min, MaxReplicas: 10,
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: target, APIVersion: "apps/v1"}},
	}
}

// run audits objs as manifests for Kubernetes 1.37 and returns the
// findings of check.
func run(check string, objs ...runtime.Object) []Finding {
	return runWith(check, Version{1, 37}, DefaultOptions(), objs...)
}

func runWith(check string, v Version, opts Options, objs ...runtime.Object) []Finding {
	inv := &Inventory{Version: v}
	for _, o := range objs {
		inv.Add(o, nil)
	}
	var out []Finding
	for _, f := range Audit(inv, opts).Findings {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

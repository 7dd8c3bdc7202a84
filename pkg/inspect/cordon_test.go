package inspect

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestToleratesCordon(t *testing.T) {
	tolerate := func(tol corev1.Toleration) deployOpt {
		return func(d *appsv1.Deployment) { d.Spec.Template.Spec.Tolerations = []corev1.Toleration{tol} }
	}
	runCases(t, "tolerates-cordon", []checkCase{
		// kubernetes-sigs/karpenter#1839
		{"every taint", objs(deploy("web", tolerate(corev1.Toleration{Operator: corev1.TolerationOpExists}))), 1, "every taint"},
		{"the cordon's taint", objs(deploy("web", tolerate(corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}))), 1, "node.kubernetes.io/unschedulable"},
		{"another taint", objs(deploy("web", tolerate(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu"}))), 0, ""},
		{"every NoExecute only", objs(deploy("web", tolerate(corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}))), 0, ""},
	})
}

package realnode

import (
	"cmp"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// PodOpts describe a pod of the test app on the real node.
type PodOpts struct {
	// SigtermAction is the app's SIGTERM_ACTION: "" (exit), "ignore" or
	// "drain:5s".
	SigtermAction string
	// Grace is terminationGracePeriodSeconds (0 means 30).
	Grace int64
	// PreStop is the app container's hook, nil for none.
	PreStop *corev1.LifecycleHandler
	// Shell picks the image with busybox's sh and sleep.
	Shell bool
}

// PodSpec returns a pod spec for the test app on the real node: it
// tolerates and selects the node, never pulls, and is Ready once GET /
// answers (probed every second).
func PodSpec(o PodOpts) corev1.PodSpec {
	return corev1.PodSpec{
		NodeSelector:                  map[string]string{NodeLabelKey: NodeLabelVal},
		Tolerations:                   []corev1.Toleration{Toleration()},
		TerminationGracePeriodSeconds: new(cmp.Or(o.Grace, 30)),
		EnableServiceLinks:            new(bool),
		Containers:                    []corev1.Container{Container("app", 8080, o)},
	}
}

// Toleration tolerates the real node's taint.
func Toleration() corev1.Toleration {
	return corev1.Toleration{Key: NodeTaintKey, Operator: corev1.TolerationOpEqual, Value: NodeTaintVal, Effect: corev1.TaintEffectNoSchedule}
}

// Container is one test-app container listening on port.
func Container(name string, port int32, o PodOpts) corev1.Container {
	image := TestAppImage
	if o.Shell {
		image = TestAppShellImage
	}
	c := corev1.Container{
		Name: name, Image: image, ImagePullPolicy: corev1.PullNever,
		Env:   []corev1.EnvVar{{Name: "SIGTERM_ACTION", Value: o.SigtermAction}, {Name: "PORT", Value: itoa(port)}},
		Ports: []corev1.ContainerPort{{ContainerPort: port, Name: "http-" + itoa(port)}},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(port)}},
			PeriodSeconds: 1, FailureThreshold: 1,
		},
	}
	if o.PreStop != nil {
		c.Lifecycle = &corev1.Lifecycle{PreStop: o.PreStop}
	}
	return c
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

// Spread lets the pods of spec also run on the spare real node
// (SpareTaint) and spreads them over the real nodes, at most one more on
// either, for tests and demos of a drain: the replacement of a pod evicted
// from one real node lands on the other. Only nodes whose taints the pods
// tolerate count as domains (nodeTaintsPolicy Honor): with the default
// (Ignore) the cordoned node would still count, the replacement would make
// the skew 2 and stay Pending (the scheduler's PodTopologySpread rules).
func Spread(spec *corev1.PodSpec, labels map[string]string) {
	spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: SpareTaintKey, Operator: corev1.TolerationOpEqual,
		Value: SpareTaintVal, Effect: corev1.TaintEffectNoSchedule})
	spec.TopologySpreadConstraints = append(spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, NodeTaintsPolicy: new(corev1.NodeInclusionPolicyHonor),
	})
}

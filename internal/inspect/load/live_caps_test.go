package load

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// cluster-autoscaler is found by its image or its command, and its cap
// read from either form of the flag; without the flag, its default.
func TestAutoscalerCap(t *testing.T) {
	spec := func(image string, command, args []string) corev1.PodSpec {
		return corev1.PodSpec{Containers: []corev1.Container{{Name: "sidecar", Image: "example.com/proxy:1"},
			{Name: "main", Image: image, Command: command, Args: args}}}
	}
	cases := []struct {
		name    string
		spec    corev1.PodSpec
		seconds int64
		found   bool
		suffix  string
	}{
		{"flag=value", spec("registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0", nil, []string{"--cloud-provider=aws", "--max-graceful-termination-sec=60"}), 60, true, "(Deployment kube-system/ca)"},
		{"flag value, one dash, found by command", spec("example.com/mirror/ca:1", []string{"./cluster-autoscaler"}, []string{"-max-graceful-termination-sec", "90"}), 90, true, "(Deployment kube-system/ca)"},
		{"no flag: default", spec("registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0", nil, []string{"--v=4"}), 600, true, ", its default"},
		{"not cluster-autoscaler", spec("example.com/web:1", nil, []string{"--max-graceful-termination-sec=60"}), 0, false, ""},
	}
	for _, c := range cases {
		got, ok := autoscalerCap("kube-system", "ca", c.spec)
		if ok != c.found || got.Seconds != c.seconds || (ok && !strings.HasSuffix(got.Name, c.suffix)) {
			t.Errorf("%s: %+v %v, want %d s (%v) ending %q", c.name, got, ok, c.seconds, c.found, c.suffix)
		}
	}
}

// Each provisioner's spot label gives its cloud's notice; Karpenter's is
// told from the node's other labels.
func TestSpotOf(t *testing.T) {
	cases := []struct {
		labels  map[string]string
		seconds int64
		spot    bool
	}{
		{map[string]string{"eks.amazonaws.com/capacityType": "SPOT"}, 120, true},
		{map[string]string{"eks.amazonaws.com/capacityType": "ON_DEMAND"}, 0, false},
		{map[string]string{"cloud.google.com/gke-spot": "true"}, 30, true},
		{map[string]string{"kubernetes.azure.com/scalesetpriority": "spot"}, 30, true},
		{map[string]string{"karpenter.sh/capacity-type": "spot", "topology.k8s.aws/zone-id": "use1-az1"}, 120, true},
		{map[string]string{"karpenter.sh/capacity-type": "spot", "kubernetes.azure.com/cluster": "c"}, 30, true},
		{map[string]string{"karpenter.sh/capacity-type": "on-demand"}, 0, false},
	}
	for _, c := range cases {
		sl, ok := spotOf(c.labels)
		if ok != c.spot || sl.seconds != c.seconds {
			t.Errorf("%v: %+v %v, want %d s (%v)", c.labels, sl, ok, c.seconds, c.spot)
		}
	}
}

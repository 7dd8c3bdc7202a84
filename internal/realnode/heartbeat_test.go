package realnode

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// Both kubelets miss at least four Lease renewals and four status checks
// before the control plane's node-monitor grace period calls their node
// silent, as with Kubernetes' defaults, so that the faults that stop a
// kubelet for seconds keep the node Ready.
func TestKubeletHeartbeatsFitGracePeriod(t *testing.T) {
	renew := time.Duration(kubeletLeaseSeconds) * time.Second / 4
	status := time.Duration(kubeletStatusSeconds) * time.Second
	if grace := localcluster.NodeMonitorGracePeriod; 4*renew >= grace || 4*status >= grace {
		t.Errorf("a Lease renewed every %s and status every %s leave fewer than four misses in the grace period %s", renew, status, grace)
	}
	for _, n := range nodes() {
		k := kubeletConfig(n)
		for _, want := range []string{"\nnodeLeaseDurationSeconds: 40\n", "\nnodeStatusUpdateFrequency: 10s\n"} {
			if !strings.Contains(k, want) {
				t.Errorf("%s's kubelet config lacks %q:\n%s", n.name, strings.TrimSpace(want), k)
			}
		}
	}
}

package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// silenceLines says that the node's kubelet stopped reporting, from the
// read at the end, and which pods are stuck terminating on it: only that
// kubelet can confirm their containers stopped, so waiting longer does not
// help until it reports again.
func silenceLines(w io.Writer, res *drain.NodeResult, name string) {
	if res.After == nil || res.After.NotReporting == nil {
		return
	}
	s := res.After.NotReporting
	fmt.Fprintf(w, "node %s stopped reporting: %s\n", name, silenceFacts(s))
	if n := len(s.Terminating); n > 0 {
		fmt.Fprintf(w, "%d pod(s) stuck terminating on it: %s; their containers may still run and only its kubelet can confirm they stopped: waiting will not help until the node reports again\n",
			n, escape(strings.Join(s.Terminating, ", ")))
	}
}

// silenceFacts words what the cluster said of a silent kubelet.
func silenceFacts(s *drain.NodeSilence) string {
	var facts []string
	if s.LastHeartbeat != nil {
		facts = append(facts, "its kubelet's last heartbeat was at "+s.LastHeartbeat.UTC().Format(time.TimeOnly)+"Z")
	}
	if s.LeaseExpired {
		facts = append(facts, "its Lease expired")
	}
	if s.Ready == "Unknown" {
		ready := "its Ready condition is Unknown"
		if s.Reason != "" {
			ready += " (" + escape(s.Reason) + ": " + escape(s.Message) + ")"
		}
		facts = append(facts, ready)
	}
	if s.Unreachable {
		facts = append(facts, "tainted node.kubernetes.io/unreachable")
	}
	return strings.Join(facts, "; ")
}

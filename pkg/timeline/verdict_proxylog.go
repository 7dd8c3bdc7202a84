package timeline

import (
	"fmt"
	"math"
	"net"
	"slices"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// ProxyCounts are failed requests by where the Ingress controller sent
// them, as its access log says (docs/ingress.md, "Which failures the
// proxy made"). Traefik's log gives the same status for the proxy's own
// 502 and a pod's, so the proxy is said to have answered only where
// nothing else could: a pod whose containers had all exited.
type ProxyCounts struct {
	// ToTerminated were sent to the address of a pod this watch saw
	// terminate (Upstreams): the proxy still routed to it.
	ToTerminated int      `json:"toTerminated"`
	Upstreams    []string `json:"upstreams,omitempty"`
	// AfterExit, of those, were sent after every container of that pod had
	// exited (as the kubelet reported, late): nothing there answered, the
	// proxy did.
	AfterExit int `json:"afterExit"`
	// ToOther were sent to other servers: their answers or the proxy's,
	// the log does not say which.
	ToOther int `json:"toOther"`
	// NoServer found no server in the proxy (an empty ServiceAddr).
	NoServer int `json:"noServer"`
	// NotLogged have no line in the log: they never reached the proxy,
	// or it did not log them (another proxy's log, a line not yet
	// written); the log cannot tell which.
	NotLogged int `json:"notLogged"`
}

// add counts one failure started at ms, by its record; terminated maps
// the IP of each pod seen terminating to when its last container exited
// (ms; noExit when not seen). A nil record (the log not read) counts
// nothing.
func (c *ProxyCounts) add(rec *probe.ProxyRecord, ms int64, terminated map[string]int64) *ProxyCounts {
	if rec == nil {
		return c
	}
	if c == nil {
		c = &ProxyCounts{}
	}
	host, _, _ := net.SplitHostPort(rec.Upstream)
	switch exit, ok := terminated[host]; {
	case !rec.Logged:
		c.NotLogged++
	case rec.Upstream == "":
		c.NoServer++
	case ok:
		c.ToTerminated++
		if ms > exit {
			c.AfterExit++
		}
		if !slices.Contains(c.Upstreams, rec.Upstream) {
			c.Upstreams = append(c.Upstreams, rec.Upstream)
		}
	default:
		c.ToOther++
	}
	return c
}

// text is the verdict's line on c.
func (c *ProxyCounts) text() string {
	var parts []string
	if c.ToTerminated > 0 {
		parts = append(parts, fmt.Sprintf("%d sent by the proxy to the terminating pod (%s), %d of them after its containers had exited, which the proxy answered itself",
			c.ToTerminated, strings.Join(c.Upstreams, ", "), c.AfterExit))
	}
	if c.ToOther > 0 {
		parts = append(parts, fmt.Sprintf("%d sent to other pods (the log does not say whether they or the proxy answered)", c.ToOther))
	}
	if c.NoServer > 0 {
		parts = append(parts, fmt.Sprintf("%d found no server in the proxy", c.NoServer))
	}
	if c.NotLogged > 0 {
		parts = append(parts, fmt.Sprintf("%d not in the log (they never reached this proxy, or it did not log them)", c.NotLogged))
	}
	return "the proxy's access log, of the failed requests: " + strings.Join(parts, "; ")
}

// noExit marks a terminated pod whose exit was not seen.
const noExit = math.MaxInt64

// AddTerminated records in terminated, for each address of tl's pod, the
// last exit in v moved by off ms onto the clock of the requests judged
// (noExit when none was seen): RequestSpan.Terminated, for the pod watch
// and a rollout's pods alike.
func AddTerminated(terminated map[string]int64, tl *Timeline, v Verdict, off int64) {
	last := int64(noExit)
	if len(v.Exits) > 0 {
		last = slices.MaxFunc(v.Exits, func(a, b Exit) int { return int(a.Ms - b.Ms) }).Ms + off
	}
	for _, ip := range tl.PodIPs {
		terminated[ip] = last
	}
}

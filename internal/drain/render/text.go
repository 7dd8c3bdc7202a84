package render

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Text is the drain's output for a person, as drain.Events (Events): each
// node's preflight, the live progress while its pods are evicted, then the
// node's summary. It never looks at the terminal itself: the command says
// whether out is one and how wide.
type Text struct {
	out      io.Writer
	width    int
	progress *Progress
	// concurrent is how many nodes of a pool drain at once (0 or 1: one).
	concurrent int
	// mu keeps whole blocks (a summary, a preflight) apart when several
	// nodes of a pool report at once.
	mu sync.Mutex
	// started are when the nodes being evicted, when several run at once,
	// started their evictions.
	started map[string]time.Time
	// pool is set once a pool's preflight was shown: its pods' changes
	// are shown as NodePodChanged, those of one node as PodChanged.
	pool bool
}

// Events returns the drain.Events that show the drain on t.
func (t *Text) Events() drain.Events {
	return drain.Events{PreflightReady: t.PreflightReady, PoolPreflightReady: t.PoolPreflightReady,
		NodesCordoned: t.NodesCordoned, EvictionsStarted: t.EvictionsStarted, PodChanged: t.podChanged,
		NodeDone: t.NodeDone, PoolDone: t.PoolDone, SurgeDone: t.SurgeDone}
}

// podChanged shows a pod's change as a pool's (NodePodChanged) or as one
// node's (PodChanged).
func (t *Text) podChanged(node string, p drain.PodProgress) {
	t.mu.Lock()
	pool := t.pool
	t.mu.Unlock()
	if pool {
		t.NodePodChanged(node, p)
		return
	}
	t.PodChanged(p)
}

// NewText writes to out; tty selects the progress view redrawn in place,
// width (columns of a terminal, 0 when out is none) the longest line it
// draws and the width tables wrap to. A terminal's lines may be stamped
// and printed plain (drain --watch: tty false, width set).
func NewText(out io.Writer, tty bool, width int) *Text {
	return &Text{out: out, width: width, progress: NewProgress(out, tty, width)}
}

// PreflightReady prints the preflight.
func (t *Text) PreflightReady(r *preflight.Report) { Preflight(t.out, r, t.width) }

// EvictionsStarted starts the progress view; with several nodes at once,
// it says so in a line instead.
func (t *Text) EvictionsStarted(node string, pods []drain.PodProgress) {
	if t.concurrent > 1 {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.started == nil {
			t.started = map[string]time.Time{}
		}
		t.started[node] = time.Now()
		fmt.Fprintf(t.out, "%s: evicting %d pod(s)\n", escape(node), len(pods))
		return
	}
	t.progress.Start(node, pods)
}

// PodChanged prints a pod's new state (a line, when not redrawing).
func (t *Text) PodChanged(p drain.PodProgress) { t.progress.Changed(p) }

// NodeDone stops the progress view and prints the node's summary.
func (t *Text) NodeDone(res *drain.NodeResult) {
	if t.concurrent <= 1 {
		t.progress.Stop()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	Summary(t.out, res, t.width)
}

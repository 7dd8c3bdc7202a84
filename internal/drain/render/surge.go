package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// surgeSection writes the workloads whose Ready pods are all on the node:
// what --surge does for each (or why it cannot), and, without --surge,
// the zero capacity an eviction costs.
func surgeSection(w io.Writer, r *preflight.Report, width int) {
	section(w, "Workloads with every Ready pod on this node:", r.Surge, []string{"WORKLOAD", "READY ON NODE", "WHAT HAPPENS"}, width, func(s preflight.SurgePlan) []string {
		what := s.Plan
		if !s.WithSurge {
			what = "without --surge: no Ready pod for " + s.ZeroCapacity
			if s.CanSurge {
				what += "; --surge would avoid it"
			}
		}
		return []string{escape(inspect.ObjectRef{Kind: s.Owner.Kind, Namespace: s.Namespace, Name: s.Owner.Name}.String()), strconv.Itoa(s.ReadyOnNode), escape(what)}
	})
}

// wavesSection writes the waves of --order priority and the pods waited
// for until they complete.
func wavesSection(w io.Writer, r *preflight.Report) {
	for i, wave := range r.Waves {
		fmt.Fprintf(w, "Wave %d (priority %d): %s\n", i+1, wave.Priority, escape(strings.Join(wave.Pods, ", ")))
	}
	if len(r.WaitCompleted) > 0 {
		fmt.Fprintf(w, "Waited for until they complete (%s=%s): %s\n", preflight.DrainLabel, preflight.DrainWaitCompleted,
			escape(strings.Join(r.WaitCompleted, ", ")))
	}
}

// surgeLine is one line for a rollout --surge started.
func surgeLine(s drain.SurgeResult) string {
	name := escape(s.Kind + " " + s.Namespace + "/" + s.Name)
	var b strings.Builder
	if s.RolledOut {
		fmt.Fprintf(&b, "surge: %s restarted and rolled out in %s", name, seconds(s.DurationSeconds))
	} else {
		fmt.Fprintf(&b, "surge: %s NOT rolled out: %s", name, escape(s.Error))
	}
	switch {
	case s.ServicesUnknown != "":
		b.WriteString("; Ready endpoints " + escape(s.ServicesUnknown))
	case len(s.Services) == 0:
		b.WriteString("; no Service selects its pods")
	}
	for _, e := range s.Services {
		switch {
		case e.NeverZero() && !s.RolledOut:
			// The evictions that follow a failed rollout are not counted.
			fmt.Fprintf(&b, "; Service %s: Ready endpoints did not reach zero while --surge tried (lowest %d), not counting the evictions after",
				escape(e.Service), *e.MinReady)
		case e.NeverZero():
			fmt.Fprintf(&b, "; Service %s: Ready endpoints never reached zero (lowest %d)", escape(e.Service), *e.MinReady)
		case e.Unknown != "":
			fmt.Fprintf(&b, "; Service %s: Ready endpoints %s", escape(e.Service), escape(e.Unknown))
		default:
			fmt.Fprintf(&b, "; Service %s: Ready endpoints REACHED ZERO", escape(e.Service))
		}
	}
	return b.String()
}

// surgeSummary writes a line per rollout --surge started.
func surgeSummary(w io.Writer, res *drain.NodeResult) {
	for _, s := range res.Surge {
		fmt.Fprintln(w, surgeLine(s))
	}
}

// SurgeDone prints, as a rollout --surge started ends, a progress line:
// that it ended and what comes next. The record of it (its Services'
// Ready endpoints included) is the summary's line, printed once
// (docs/drain-surge.md).
func (t *Text) SurgeDone(_ string, s drain.SurgeResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	name := escape(s.Kind + " " + s.Namespace + "/" + s.Name)
	if s.RolledOut {
		fmt.Fprintf(t.out, "surge: %s rolled out in %s; evicting the node's pods next\n", name, seconds(s.DurationSeconds))
		return
	}
	fmt.Fprintf(t.out, "surge: %s NOT rolled out (%s); its pods are evicted as without --surge\n", name, escape(s.Error))
}

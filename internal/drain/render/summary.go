package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// Summary writes how the drain of one node ended. When it ended before
// changing anything it is one line saying why nothing was done (a refusal),
// or nothing (a dry run: the preflight said it all; an API error: the
// command reports it). Otherwise it is the per-pod table, the outcome, what
// is left on the node and whether it stays cordoned. width is the
// terminal's width in columns (0 when w is not a terminal): the LAST CAUSE
// column wraps to fit it.
func Summary(w io.Writer, res *drain.NodeResult, width int) {
	if !res.EvictionsStarted {
		notStarted(w, res)
		return
	}
	surgeSummary(w, res)
	var rows [][]string
	counts, gone := map[drain.State]int{}, map[drain.GoneBy]int{}
	evicted := evictedCount(res.Pods)
	for _, p := range res.Pods {
		counts[p.State]++
		if p.GoneBy != drain.GoneByDeleteAfter && p.GoneBy != drain.GoneByEviction {
			gone[p.GoneBy]++
		}
		if p.Accepted && p.DeletedPastBudget {
			// Counted once deleted, gone yet or not: the pool's EVICTED cell.
			gone[drain.GoneByDeleteAfter]++
		}
		rows = append(rows, []string{escape(p.Namespace + "/" + p.Name), result(p), strconv.Itoa(p.Attempts),
			seconds(p.StartedSeconds), seconds(p.DurationSeconds), escape(p.Cause)})
	}
	if len(rows) > 0 {
		drawTable(w, []string{"POD", "RESULT", "ATTEMPTS", "STARTED", "DURATION", "LAST CAUSE"}, rows, width)
	}
	overriddenLine(w, res)
	lbLines(w, res)
	name := escape(res.Node)
	switch res.Outcome {
	case drain.OutcomeDrained:
		fmt.Fprintf(w, "node %s drained: %d pod(s) evicted%s in %s\n", name, evicted.n, byOthers(gone), seconds(res.DurationSeconds))
		if outOfLB(res) {
			outOfLBLine(w, name)
		}
		return
	case drain.OutcomeUndone:
		fmt.Fprintf(w, "node %s NOT drained: its pods were evicted, but read again at the end %s\n", name, undone(res))
	case drain.OutcomeTimedOut:
		fmt.Fprintf(w, "node %s NOT drained: --timeout reached\n", name)
	case drain.OutcomeInterrupted:
		fmt.Fprintf(w, "node %s NOT drained: interrupted; no new evictions were started\n", name)
	case drain.OutcomeBlocked:
		fmt.Fprintf(w, "node %s NOT drained: evictions were refused\n", name)
	default:
		fmt.Fprintf(w, "node %s NOT drained: %s\n", name, escape(res.Error))
	}
	left := len(res.Pods) - counts[drain.StateGone] - counts[drain.StateUnknown]
	fmt.Fprintf(w, "evicted: %s%s, still on the node: %d (%d terminating, %d not evicted, %d failed)%s\n",
		evicted, byOthers(gone), left, counts[drain.StateTerminating], counts[drain.StateStopped]+counts[drain.StateBlocked]+counts[drain.StateNamespaceTerminating]+counts[drain.StatePending]+counts[drain.StateEvicting]+counts[drain.StateAnswerLost], counts[drain.StateFailed], unknown(counts))
	silenceLines(w, res, name)
	cordonLine(w, res, name)
}

// evicted counts the pods whose eviction (or delete) this drain had
// accepted, gone yet or not, those deleted past their budget apart: the
// pool summary's EVICTED, so that a node's line and its row agree; a pod
// still terminating is both evicted and still on the node.
type evicted struct{ n, terminating int }

func evictedCount(pods []drain.PodProgress) evicted {
	var e evicted
	for _, p := range pods {
		if !p.Accepted || p.DeletedPastBudget {
			continue
		}
		e.n++
		if p.State == drain.StateTerminating {
			e.terminating++
		}
	}
	return e
}

// String is "5", or "5 (1 still terminating)".
func (e evicted) String() string {
	if e.terminating == 0 {
		return strconv.Itoa(e.n)
	}
	return fmt.Sprintf("%d (%d still terminating)", e.n, e.terminating)
}

// unknown counts the pods whose state could not be read at the end.
func unknown(counts map[drain.State]int) string {
	if n := counts[drain.StateUnknown]; n > 0 {
		return fmt.Sprintf("; %d pod(s) in a state unknown: they could not be read at the end", n)
	}
	return ""
}

// result is a pod's RESULT cell: its state, and for a gone pod who removed it.
func result(p drain.PodProgress) string {
	if p.State == drain.StateGone && p.GoneBy != "" {
		return goneByText(p.GoneBy)
	}
	return words(p.State)
}

// byOthers counts the gone pods that this drain did not evict (deleted
// past their budget, or by others),
// ", 1 deleted by another client", or "": a pod gone after an eviction
// whose answer was lost is counted apart, never dropped from the count.
func byOthers(gone map[drain.GoneBy]int) string {
	out := ""
	for _, by := range []drain.GoneBy{drain.GoneByDeleteAfter, drain.GoneByLostAnswer, drain.GoneBySurge, drain.GoneByNamespace, drain.GoneByOther} {
		switch {
		case by == drain.GoneByDeleteAfter && gone[by] > 1:
			out += fmt.Sprintf(", %d deleted past their budget", gone[by])
		case gone[by] > 0:
			out += fmt.Sprintf(", %d %s", gone[by], goneByText(by))
		}
	}
	return out
}

// undone says what another client changed on a node whose pods went.
func undone(res *drain.NodeResult) string {
	var what []string
	if !res.After.Unschedulable {
		what = append(what, "it was schedulable: another client uncordoned it during the drain")
	}
	if n := len(res.After.NewPods); n > 0 {
		what = append(what, fmt.Sprintf("%d new pod(s) run on it: %s", n, escape(strings.Join(res.After.NewPods, ", "))))
	}
	return strings.Join(what, "; ")
}

// cordonLine says whether the node stays cordoned, from the read at the end
// when there is one.
func cordonLine(w io.Writer, res *drain.NodeResult, name string) {
	after := res.After
	switch {
	case res.Outcome == drain.OutcomeNodeGone:
		fmt.Fprintf(w, "node %s is gone: it was deleted during the drain\n", name)
	case after != nil && !after.Known:
		fmt.Fprintf(w, "node %s: state unknown, %s\n", name, escape(after.Unknown))
	case res.Uncordoned:
		fmt.Fprintf(w, "node %s uncordoned again (--uncordon-on-failure; this drain had cordoned it)\n", name)
	case after != nil && !after.Unschedulable:
		fmt.Fprintf(w, "node %s is schedulable: another client uncordoned it during the drain\n", name)
	case res.UncordonSkipped != "":
		fmt.Fprintf(w, "node %s stays cordoned: not uncordoned (--uncordon-on-failure) because %s\n", name, escape(res.UncordonSkipped))
	case res.CordonedByUs && outOfLB(res):
		outOfLBLine(w, name)
	case res.CordonedByUs:
		fmt.Fprintf(w, "node %s stays cordoned; `kubectl graceful uncordon %s` makes it schedulable again\n", name, name)
	default:
		fmt.Fprintf(w, "node %s stays cordoned (it was cordoned before this drain's cordon, so it is left so)\n", name)
	}
}

func seconds(s float64) string {
	return (time.Duration(s*10) * time.Second / 10).String()
}

// notStarted says why a drain that changed nothing stopped: a refusal, or
// Ctrl-C or --timeout before the cordon (no read at the end was made: the
// node of a pool cordoned before its evictions has one, and the pool's
// summary tells it).
func notStarted(w io.Writer, res *drain.NodeResult) {
	var why string
	switch {
	case res.Outcome == drain.OutcomeRefused && res.Error != "":
		why = escape(res.Error)
	case res.Outcome == drain.OutcomeRefused:
		why = "the blockers above need a flag or a change; nothing was changed"
	case res.Outcome == drain.OutcomeInterrupted && res.After == nil:
		why = "interrupted before the cordon; nothing was changed"
	case res.Outcome == drain.OutcomeTimedOut && res.After == nil:
		why = "--timeout reached before the cordon; nothing was changed"
	default:
		return
	}
	fmt.Fprintf(w, "not draining node %s: %s\n", escape(res.Node), why)
}

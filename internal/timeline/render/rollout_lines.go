package render

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
)

// writeColumns writes pre (the columns before the subject, escaped),
// subject padded to pad columns, the track and msg as one line of the
// rollout and node watches, fitting width columns unless wide: subject
// elided (and its padding cut) to leave msg minMessage columns, msg cut.
func writeColumns(w io.Writer, width int, pre, subject string, pad int, track, msg string, wide bool) error {
	post := fmt.Sprintf("  %-13s  ", track)
	subject = termsafe.Escape(subject)
	if !wide {
		room := min(MaxName, width-len([]rune(pre))-len(post)-minMessage)
		subject, pad = ElideName(subject, room), min(pad, room)
	}
	return writeFitted(w, width, pre+fmt.Sprintf("%-*s", pad, subject)+post, msg, "", wide)
}

// capacityText is a Service's endpoint count in words, of what its Desired
// is ("desired", "ready at start").
func capacityText(s rollout.CapacitySample, of string) string {
	return fmt.Sprintf("ready endpoints %d of %d %s, %d serving while terminating", s.Ready, s.Desired, of, s.ServingTerminating)
}

// WriteRolloutTable writes one row per terminated pod: when its deletion
// was seen, its window, how SIGTERM was estimated, its exit codes and its
// verdict, fitted to width columns (a terminal's; 0: not fitted).
func WriteRolloutTable(w io.Writer, v rollout.Verdict, width int) error {
	header := []string{"POD", "DELETED MS", "WINDOW MS", "SIGTERM BASIS", "EXIT", "VERDICT"}
	return writeTable(w, "No pod of the workload terminated while watched.", v.Pods, header, width, func(p rollout.PodResult) []string {
		pv := p.Verdict
		window := "-"
		if pv.WindowMs != nil {
			window = strconv.FormatInt(*pv.WindowMs, 10)
		}
		var exits []string
		for _, x := range pv.Exits {
			exits = append(exits, strconv.Itoa(int(x.Code)))
		}
		return []string{termsafe.Escape(p.Pod), fmt.Sprintf("%+d", p.DeletedMs), window,
			termsafe.Escape(cmp.Or(pv.SigtermBasisText, "-")), cmp.Or(strings.Join(exits, ","), "-"), podVerdictWord(p)}
	}, nil)
}

func podVerdictWord(p rollout.PodResult) string {
	switch {
	case p.Raced:
		return "RACE"
	case p.WindowTooShort:
		return "TOO SHORT"
	case p.Killed:
		return "SIGKILL"
	case p.CannotBeJudged():
		return "cannot tell"
	case p.Verdict.Risk:
		return "RISK"
	case !p.Verdict.BehindService:
		return "safe (no Service)"
	}
	return "safe"
}

// WriteRolloutVerdict writes the rollout's headline and its findings.
func WriteRolloutVerdict(w io.Writer, r *rollout.Rollout, v rollout.Verdict) error {
	head := "SAFE: no pod raced its endpoints or was SIGKILLed, capacity stayed within budget, the rollout completed"
	switch {
	case v.Risk && v.Requests != nil && v.Requests.Failed > 0:
		head = fmt.Sprintf("RISK: %d of %d requests failed during this rollout", v.Requests.Failed, v.Requests.Total)
	case v.CannotTell:
		head = cannotTellHead
	case v.Risk:
		head = "RISK: requests can fail during this rollout"
	case r.T0.IsZero():
		head = "NO ROLLOUT SEEN: no pod of the workload terminated while watched"
	case r.EndpointsUnseen:
		head = "NO VERDICT ON THE RACE: the EndpointSlices could not be watched (no other risk seen)"
	}
	title := "Rollout verdict for " + termsafe.Escape(r.Workload.String()) + " in " + termsafe.Escape(r.Workload.Namespace)
	return writeVerdict(w, title, head, v.Findings, r.Notes)
}

// writeVerdict writes, after a blank line, title (escaped) and head, then
// the verdict's findings and notes, one a line, escaped: the end of every
// watch.
func writeVerdict(w io.Writer, title, head string, findings, notes []string) error {
	if _, err := fmt.Fprintf(w, "\n%s: %s\n", title, head); err != nil {
		return err
	}
	for _, f := range findings {
		if _, err := fmt.Fprintf(w, "  - %s\n", termsafe.Escape(f)); err != nil {
			return err
		}
	}
	for _, n := range notes {
		if _, err := fmt.Fprintf(w, "  note: %s\n", termsafe.Escape(n)); err != nil {
			return err
		}
	}
	return nil
}

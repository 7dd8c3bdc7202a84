package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// clockOf is a timeline.Timeline that only carries t0 (a rollout's start,
// a node watch's first deletion), so that the line and JSON helpers of
// `watch pod` count milliseconds from it.
func clockOf(t0 time.Time) *timeline.Timeline { return &timeline.Timeline{T0: t0} }

// msColumn formats the monotonic offset of t: "+5012 ms", "start" for
// events that had happened before the watch, "before" for changes seen
// before the delete request (T0 not known yet).
func msColumn(tl *timeline.Timeline, t time.Time, initial bool) string {
	if initial {
		return "start"
	}
	ms, ok := tl.Ms(t)
	if !ok {
		return "before"
	}
	return fmt.Sprintf("%+d ms", ms)
}

// serverColumn is the server's whole-second time of t, "--:--:--" when
// the API records none; --wide prints it after the ms column.
func serverColumn(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.UTC().Format("15:04:05")
}

// noServerTime fills the server-time column of a line of our own (a gap,
// the probe's requests), which no API object stamps.
const noServerTime = "--------"

// clockHead starts a live line: the ms column, one clock for every
// command; wide adds server (serverColumn or noServerTime) after it.
func clockHead(ms, server string, wide bool) string {
	if !wide {
		return fmt.Sprintf("%10s  ", ms)
	}
	return fmt.Sprintf("%10s  %s  ", ms, server)
}

// LineWidth is the columns a narrow live line fits in: long messages are
// cut to it; --wide and -o json have them whole.
const LineWidth = 120

// minMessage is the fewest columns a narrow line gives its message: names
// longer than the rest of the line leaves are elided (ElideName).
const minMessage = 30

// writeFitted writes head, msg (cluster text, escaped here) and tail (our
// own words, never cut) as one line: msg cut to fit width columns (at
// least minMessage, ending in "…"), or whole up to MaxLineMessage when
// wide.
func writeFitted(w io.Writer, width int, head, msg, tail string, wide bool) error {
	if wide {
		msg = termsafe.Escape(CutMessage(msg))
	} else {
		msg = CutLine(termsafe.Escape(msg), max(width-len([]rune(head))-len([]rune(tail)), minMessage))
	}
	_, err := io.WriteString(w, head+msg+tail+"\n")
	return err
}

// WriteLine writes one event as a line: milliseconds since the delete
// request, the track and what changed, escaped for the terminal; the
// message cut to fit LineWidth columns unless wide, which adds the
// server's whole-second time (or dashes when the API records none).
func WriteLine(w io.Writer, tl *timeline.Timeline, e timeline.Event, wide bool) error {
	return writeEventLine(w, tl, e, "", wide)
}

// writeEventLine is WriteLine with tail after the message, never cut.
func writeEventLine(w io.Writer, tl *timeline.Timeline, e timeline.Event, tail string, wide bool) error {
	return writeFitted(w, LineWidth, clockHead(msColumn(tl, e.Recv, e.Initial), serverColumn(e.Server), wide)+fmt.Sprintf("%-13s  ", trackText(e.Track)), e.Message, tail, wide)
}

// WritePreStopWait writes, after a container's Killing line, the wait its
// preStop delay makes when the spec tells it (a sleep): the kubelet sends
// SIGTERM when the hook returns, so the watch is not silent meanwhile.
// Nothing for a container without a hook or one of unknown length. The
// line fits LineWidth columns unless wide.
func WritePreStopWait(w io.Writer, tl *timeline.Timeline, e timeline.Event, wide bool) error {
	ps, ok := tl.PreStop[e.Container]
	ms, seen := tl.Ms(e.Recv)
	if !ok || !ps.Has || !ps.Known || ps.Delay <= 0 || !seen || e.Initial {
		return nil
	}
	head := clockHead(msColumn(tl, e.Recv, false), serverColumn(time.Time{}), wide) + fmt.Sprintf("%-13s  ", "waiting")
	return writeFitted(w, LineWidth, head, fmt.Sprintf("preStop %s of container %s: SIGTERM expected at %+d ms", seconds(ps.Delay), e.Container, ms+ps.Delay.Milliseconds()), "", wide)
}

// seconds is d as "10 s", "1.5 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// MaxLineMessage is how many characters of a message a terminal line
// shows; the rest is counted, and -o json keeps the whole text (an Event
// message or an annotation can be a megabyte).
const MaxLineMessage = 400

// CutMessage returns s cut to MaxLineMessage characters, saying how many
// more there were.
func CutMessage(s string) string {
	r := []rune(s)
	if len(r) <= MaxLineMessage {
		return s
	}
	return string(r[:MaxLineMessage]) + fmt.Sprintf("... (%d more characters; -o json has the whole text)", len(r)-MaxLineMessage)
}

// WriteGapLine writes the line that marks a watch gap: its opening while To
// is zero, its closing otherwise; cut to fit LineWidth columns (its reason
// first) unless wide.
func WriteGapLine(w io.Writer, tl *timeline.Timeline, g timeline.Gap, wide bool) error {
	head := clockHead(msColumn(tl, gapAt(g), false), noServerTime, wide) + fmt.Sprintf("%-13s  ", "watch")
	room := LineWidth - len(head)
	if wide {
		room = 0 // no limit
	}
	_, err := io.WriteString(w, head+gapText(g, room)+"\n")
	return err
}

// minReason is the fewest columns a narrow gap line gives the error that
// opened the gap.
const minReason = 20

// gapText says what a gap's opening or closing means, in room columns
// (0: no limit): the reason is cut first, so that what the gap means
// stays whole where it can.
func gapText(g timeline.Gap, room int) string {
	reason := termsafe.Escape(g.Reason)
	if room <= 0 {
		return gapWords(g, reason)
	}
	reason = CutLine(reason, max(room-len([]rune(gapWords(g, ""))), minReason))
	return CutLine(gapWords(g, reason), room)
}

// gapWords is gapText with reason (escaped) as given.
func gapWords(g timeline.Gap, reason string) string {
	switch {
	case g.Stalled:
		return fmt.Sprintf("STALL: %s watch connected but late: %s; the changes around it are stamped late", g.Stream, reason)
	case g.To.IsZero():
		return fmt.Sprintf("GAP: %s watch lost (%s); reconnecting", g.Stream, reason)
	case g.Relisted:
		return fmt.Sprintf("GAP: %s watch re-listed after %d ms: changes inside the gap are seen only as their net result, stamped now", g.Stream, g.To.Sub(g.From).Milliseconds())
	}
	return fmt.Sprintf("GAP: %s watch resumed after %d ms from its last resourceVersion: nothing lost, changes inside the gap are stamped late", g.Stream, g.To.Sub(g.From).Milliseconds())
}

// cannotTellHead is the headline of a pod's or a rollout's verdict whose
// only risk is a race that cannot be told.
const cannotTellHead = "CANNOT TELL: a watch was cut or stalled while the race was decided (no risk seen in what arrived)"

// WriteVerdict writes the verdict block: a headline and one line a finding.
func WriteVerdict(w io.Writer, tl *timeline.Timeline, v timeline.Verdict) error {
	head := "SAFE: the pod stopped receiving traffic before it stopped serving"
	switch {
	case v.CannotTell:
		head = cannotTellHead
	case v.Risk && v.Requests != nil && v.Requests.Failed > v.Requests.Network:
		head = fmt.Sprintf("RISK: %d of %d requests failed while this pod terminated", v.Requests.Failed, v.Requests.Total)
	case v.Risk:
		head = "RISK: requests can fail while this pod terminates"
	case len(v.NoReadyEndpoint) > 0:
		head = "SAFE: the pod stopped receiving traffic before it was told to stop (its Service had no other ready endpoint for a while, so traffic kept coming after it left the ready set)"
	case !v.BehindService && !tl.EndpointsUnseen:
		head = "SAFE: the pod is not behind any Service"
	case tl.EndpointsUnseen:
		head = "NO VERDICT ON THE RACE: the EndpointSlices could not be watched (no other risk seen)"
	}
	return writeVerdict(w, "Verdict for pod "+termsafe.Escape(tl.Namespace)+"/"+termsafe.Escape(tl.Pod), head, v.Findings, tl.Notes)
}

// followsExit reports whether another live line says e already, so that
// the compact live lines leave it out (--wide and -o json keep it): a pod
// condition the kubelet turns once every container has ended (reason
// PodCompleted, in its status manager) or ContainersReady, which turns
// with Ready (the kubelet's status manager sets both from the containers'
// readiness); phase Succeeded, which the exit lines say.
func followsExit(e timeline.Event) bool {
	switch e.Kind {
	case timeline.KindCondition:
		return strings.Contains(e.Message, " (PodCompleted)") || strings.HasPrefix(e.Message, "condition ContainersReady=")
	case timeline.KindPhase:
		return e.Message == "phase "+string(corev1.PodSucceeded)
	}
	return false
}

// trackText is a track as the text output prints it: "control plane" for
// the JSON's "control-plane".
func trackText(t timeline.Track) string { return strings.ReplaceAll(string(t), "-", " ") }

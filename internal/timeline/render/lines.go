package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

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

func serverColumn(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.UTC().Format("15:04:05")
}

// LineWidth is the columns a narrow live line fits in: long messages are
// cut to it; --wide and -o json have them whole.
const LineWidth = 120

// minMessage is the fewest columns a narrow line gives its message, even
// past LineWidth when the names before it are long: a name is never cut.
const minMessage = 30

// fitMessage cuts msg (escaped) to room columns, at least minMessage,
// ending in "…" when cut.
func fitMessage(msg string, room int) string {
	room = max(room, minMessage)
	r := []rune(msg)
	if len(r) <= room {
		return msg
	}
	return string(r[:room-1]) + "…"
}

// writeFitted writes head, msg (cluster text, escaped here) and tail (our
// own words, never cut) as one line: msg cut to fit LineWidth columns, or
// whole up to MaxLineMessage when wide.
func writeFitted(w io.Writer, head, msg, tail string, wide bool) error {
	if wide {
		msg = termsafe.Escape(CutMessage(msg))
	} else {
		msg = fitMessage(termsafe.Escape(msg), LineWidth-len([]rune(head))-len([]rune(tail)))
	}
	_, err := io.WriteString(w, head+msg+tail+"\n")
	return err
}

// WriteLine writes one event as a line: milliseconds since the delete
// request, the server's whole-second time (or dashes when the API records
// none), the track and what changed, escaped for the terminal; the message
// cut to fit LineWidth columns unless wide.
func WriteLine(w io.Writer, tl *timeline.Timeline, e timeline.Event, wide bool) error {
	return writeEventLine(w, tl, e, "", wide)
}

// writeEventLine is WriteLine with tail after the message, never cut.
func writeEventLine(w io.Writer, tl *timeline.Timeline, e timeline.Event, tail string, wide bool) error {
	return writeFitted(w, fmt.Sprintf("%10s  %s  %-13s  ", msColumn(tl, e.Recv, e.Initial), serverColumn(e.Server), trackText(e.Track)), e.Message, tail, wide)
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
	head := fmt.Sprintf("%10s  %s  %-13s  ", msColumn(tl, e.Recv, false), serverColumn(time.Time{}), "waiting")
	return writeFitted(w, head, fmt.Sprintf("preStop %s of container %s: SIGTERM expected at %+d ms", seconds(ps.Delay), e.Container, ms+ps.Delay.Milliseconds()), "", wide)
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
// is zero, its closing otherwise.
func WriteGapLine(w io.Writer, tl *timeline.Timeline, g timeline.Gap) error {
	at := g.From
	if !g.To.IsZero() {
		at = g.To
	}
	_, err := fmt.Fprintf(w, "%10s  %s  %-13s  %s\n", msColumn(tl, at, false), "--------", "watch", gapText(g))
	return err
}

// gapText says what a gap's opening or closing means.
func gapText(g timeline.Gap) string {
	var msg string
	switch {
	case g.Stalled:
		msg = fmt.Sprintf("STALL: %s watch connected but late: %s; the changes around it are stamped late", g.Stream, termsafe.Escape(g.Reason))
	case g.To.IsZero():
		msg = fmt.Sprintf("GAP: %s watch lost (%s); reconnecting", g.Stream, termsafe.Escape(g.Reason))
	case g.Relisted:
		msg = fmt.Sprintf("GAP: %s watch re-listed after %d ms: changes inside the gap are seen only as their net result, stamped now", g.Stream, g.To.Sub(g.From).Milliseconds())
	default:
		msg = fmt.Sprintf("GAP: %s watch resumed after %d ms from its last resourceVersion: nothing lost, changes inside the gap are stamped late", g.Stream, g.To.Sub(g.From).Milliseconds())
	}
	return msg
}

// WriteVerdict writes the verdict block: a headline and one line a finding.
func WriteVerdict(w io.Writer, tl *timeline.Timeline, v timeline.Verdict) error {
	head := "SAFE: the pod stopped receiving traffic before it stopped serving"
	switch {
	case v.CannotTell:
		head = "CANNOT TELL: a watch was cut or stalled while the race was decided (no risk seen in what arrived)"
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
	if _, err := fmt.Fprintf(w, "\nVerdict for pod %s/%s: %s\n", termsafe.Escape(tl.Namespace), termsafe.Escape(tl.Pod), head); err != nil {
		return err
	}
	for _, f := range v.Findings {
		if _, err := fmt.Fprintf(w, "  - %s\n", termsafe.Escape(f)); err != nil {
			return err
		}
	}
	for _, n := range tl.Notes {
		if _, err := fmt.Fprintf(w, "  note: %s\n", termsafe.Escape(n)); err != nil {
			return err
		}
	}
	return nil
}

// trackText is a track as the text output prints it: "control plane" for
// the JSON's "control-plane".
func trackText(t timeline.Track) string { return strings.ReplaceAll(string(t), "-", " ") }

package render

import (
	"io"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/table"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// ellipsis marks what a narrow line left out; --wide and -o json have it.
const ellipsis = "…"

// MaxName is the most columns a name (a pod, a Service, a node) takes in
// a narrow live line, fewer when the line leaves less room: longer names
// are elided (ElideName), so that the message keeps its room.
const MaxName = 40

// minNameStart is the fewest leading characters an elided name keeps: its
// workload's name starts there.
const minNameStart = 4

// ElideName returns name (already escaped) in at most width columns: whole
// when it fits, else its start and its end with "…" between. The end kept
// is, when it leaves minNameStart characters of the start, the name's last
// two "-"-separated parts (a Deployment's pod ends in its ReplicaSet's
// pod-template-hash and a random suffix: "web-very-long-…-7d9f8-x2k4q"),
// so that the pods of one workload stay told apart; otherwise its last
// half. Pod names are DNS subdomains of up to 253 characters, 63 in
// practice (the hostname limit), so a name alone can fill a line.
func ElideName(name string, width int) string {
	r := []rune(name)
	if len(r) <= width || width <= 1 {
		return CutLine(name, width)
	}
	keep := width - 1 // the ellipsis takes one column
	tail := nameTail(r)
	if tail == 0 || tail > keep-minNameStart {
		tail = keep / 2
	}
	return string(r[:keep-tail]) + ellipsis + string(r[len(r)-tail:])
}

// nameTail is how many characters the last two "-"-separated parts of r
// take with the dash before them ("-7d9f8-x2k4q"), 0 when r has fewer
// than two dashes.
func nameTail(r []rune) int {
	dashes := 0
	for i := len(r) - 1; i > 0; i-- {
		if r[i] != '-' {
			continue
		}
		if dashes++; dashes == 2 {
			return len(r) - i
		}
	}
	return 0
}

// CutLine returns s (already escaped) in at most width columns, ending in
// "…" when cut.
func CutLine(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width <= 1 {
		return ellipsis
	}
	return string(r[:width-1]) + ellipsis
}

// notePrefix starts a note's line; its continuation lines are indented
// as wide.
const notePrefix = "note: "

// writeNote writes a live note: "note: " and msg (cluster text, escaped
// here) as lines of at most width columns unless wide, broken between
// words (a word longer than a line is broken where the line ends): a note
// is our own sentence, read whole, so it wraps where an event's message is
// cut. A width that leaves the note less than minMessage keeps it one line.
func writeNote(w io.Writer, msg string, width int, wide bool) error {
	msg = termsafe.Escape(msg)
	if room := width - len(notePrefix); !wide && room >= minMessage {
		msg = strings.Join(table.Wrap(msg, room), "\n"+strings.Repeat(" ", len(notePrefix)))
	}
	_, err := io.WriteString(w, notePrefix+msg+"\n")
	return err
}

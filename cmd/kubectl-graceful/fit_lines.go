package main

import (
	"bytes"
	"io"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/table"
)

// lineFitter is stdout on a terminal of width columns: each line longer
// than that is broken between words, its continuation indented under its
// text (under the text of a "- " item). The lines broken are our own
// sentences, read whole: a verdict's headline and findings, a preflight's
// blockers and warnings. A live line is cut to fit before it is written
// (render.LineWidth), a table is fitted by internal/table: a line that
// draws (box characters) passes as it is, and so does everything written
// with a cursor movement (escape sequences, carriage returns: the redrawn
// progress) or without its newline yet.
type lineFitter struct {
	w     io.Writer
	width int
}

func (f lineFitter) Write(p []byte) (int, error) {
	if bytes.ContainsAny(p, "\x1b\r") {
		return f.w.Write(p)
	}
	lines := strings.Split(string(p), "\n")
	for i := range len(lines) - 1 { // the last is not a whole line yet
		lines[i] = fitLine(lines[i], f.width)
	}
	if _, err := io.WriteString(f.w, strings.Join(lines, "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fitLine breaks line between words into lines of at most width columns,
// its continuation indented two columns under its text; a line that fits,
// draws a table or has no room for its indent is kept.
func fitLine(line string, width int) string {
	if table.Fits(line, width) || strings.ContainsAny(line, "│─┌└├") {
		return line
	}
	text := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(text)]
	hang := len(indent) + 2
	if hang+20 > width {
		return line
	}
	first := table.Wrap(text, width-len(indent))
	if len(first) < 2 {
		return line
	}
	lines := append(first[:1], table.Wrap(strings.Join(first[1:], " "), width-hang)...)
	return indent + strings.Join(lines, "\n"+strings.Repeat(" ", hang))
}

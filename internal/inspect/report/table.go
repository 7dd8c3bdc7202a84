package report

import (
	"fmt"
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/table"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// ANSI colours per severity (SGR codes).
var severityColor = map[inspect.Severity]string{
	inspect.SeverityError:   "\x1b[31m", // red
	inspect.SeverityWarning: "\x1b[33m", // yellow
	inspect.SeverityInfo:    "\x1b[36m", // cyan
}

const colorReset = "\x1b[0m"

// TableWidth prints findings grouped by object (the object is named on its
// first row only), then skipped checks, then a one-line summary, for a
// terminal width columns wide (0: not a terminal): the MESSAGE column wraps
// so that no line of the table is wider. Every string that came from a
// manifest or the cluster goes through termsafe.Escape.
func TableWidth(w io.Writer, r *inspect.Report, color bool, width int) error {
	var rows [][]string
	var last inspect.ObjectRef
	for i, f := range r.Findings {
		obj := ""
		if i == 0 || f.Object != last {
			obj = termsafe.Escape(f.Object.String())
		}
		last = f.Object
		rows = append(rows, findingRow(f, obj, color))
	}
	var lines []string
	for _, s := range r.Skipped {
		lines = append(lines, fmt.Sprintf("skipped %s: %s", s.Check, termsafe.Escape(s.Message)))
	}
	for _, n := range r.Notes {
		lines = append(lines, "note: "+termsafe.Escape(n))
	}
	header := []string{"OBJECT", "CONTAINER", "SEVERITY", "CHECK", "MESSAGE"}
	return writeTable(w, header, rows, width, append(lines, Summary(r)))
}

// writeTable prints rows under header (none when there are no rows), then
// lines, then, when there are rows, where to find their fixes.
func writeTable(w io.Writer, header []string, rows [][]string, width int, lines []string) error {
	if len(rows) > 0 {
		if err := table.Write(w, header, rows, table.Plain, width); err != nil {
			return err
		}
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	if len(rows) > 0 {
		_, err := fmt.Fprintln(w, fixesHint)
		return err
	}
	return nil
}

const fixesHint = "Fixes: -o yaml (a kubectl patch line per finding); why and how: kubectl graceful audit explain CHECK"

// findingRow is a finding's OBJECT (obj, already escaped; "" on a group's
// later rows), CONTAINER, SEVERITY, CHECK and MESSAGE cells.
func findingRow(f inspect.Finding, obj string, color bool) []string {
	sev := string(f.Severity)
	if color {
		sev = severityColor[f.Severity] + sev + colorReset
	}
	return []string{obj, termsafe.Escape(f.Container), sev, f.Check, termsafe.Escape(f.Message)}
}

// Summary is the one-line summary closing the table output.
func Summary(r *inspect.Report) string {
	s := r.Summary
	line := fmt.Sprintf("%s (%s, %s, %d info) in %s of %s",
		count(s.Findings, "finding"), count(s.Errors, "error"), count(s.Warnings, "warning"), s.Infos,
		count(s.Workloads, "workload"), count(s.Objects, "object"))
	if s.Skipped > 0 {
		line += fmt.Sprintf("; %s skipped", count(s.Skipped, "check"))
	}
	if s.Suppressed > 0 {
		line += fmt.Sprintf("; %d suppressed", s.Suppressed)
	}
	if s.Generic > 0 {
		line += fmt.Sprintf("; %d generic workloads (read through their pod template)", s.Generic)
	}
	for _, n := range s.NotAudited {
		line += fmt.Sprintf("; %d not audited: %s", n.Count, termsafe.Escape(n.Message))
	}
	return line
}

// count writes n with its noun, plural unless n is 1: "1 workload",
// "2 workloads".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

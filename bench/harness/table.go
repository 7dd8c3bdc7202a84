package harness

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Row is one line of the results table. Ours holds either a figure or
// "not measured: <reason>"; empty cells print as "-".
type Row struct {
	What   string
	Ours   string
	Theirs string
	Ratio  string
	Target string
	// Met is "yes", "no" or "-" (informational rows, or not measured).
	Met string
}

// Columns are the table's headings, in order.
var Columns = []string{"WHAT", "OURS", "THEIRS OR FLOOR", "RATIO", "TARGET", "MET"}

// NotMeasuredPrefix starts the Ours cell of a row that could not be measured.
const NotMeasuredPrefix = "not measured: "

func notMeasured(what, target, reason string) Row {
	return Row{What: what, Ours: NotMeasuredPrefix + reason, Target: target, Met: "-"}
}

func (r Row) cells() []string {
	cs := []string{r.What, r.Ours, r.Theirs, r.Ratio, r.Target, r.Met}
	for i, c := range cs {
		if c == "" {
			cs[i] = "-"
		}
	}
	return cs
}

// ratio formats ours/theirs as "1.23x".
func ratio(ours, theirs float64) string {
	if theirs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", ours/theirs)
}

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// PrintTable writes rows as an aligned plain-text table.
func PrintTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(Columns, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	return tw.Flush()
}

// PrintMarkdown writes rows as a Markdown table (for bench/RESULTS.md).
func PrintMarkdown(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(Columns, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(Columns)))
	for _, r := range rows {
		cs := r.cells()
		for i := range cs {
			cs[i] = strings.ReplaceAll(cs[i], "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cs, " | "))
	}
}

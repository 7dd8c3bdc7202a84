package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

const cause = "The disruption budget web needs 2 healthy pods and has 2 currently; " +
	"The disruption budget api-with-a-very-long-name-indeed-that-never-ends is still being processed by the server."

var (
	header = []string{"POD", "RESULT", "LAST CAUSE"}
	rows   = [][]string{
		{"shop/web-7d4b9c-abcde", "not evicted", cause},
		{"shop/web-7d4b9c-fghij", "gone", ""},
	}
)

func draw(t *testing.T, style Style, width int) []string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, header, rows, style, width); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func TestFitsTheTerminalWidth(t *testing.T) {
	for _, style := range []Style{Boxed, Plain} {
		for _, width := range []int{60, 80, 120} {
			lines := draw(t, style, width)
			words := strings.Fields(cause)
			text := strings.Join(lines, " ")
			for _, l := range lines {
				if w := twwidth.Width(l); w > width {
					t.Errorf("style %d width %d: line of %d columns: %q", style, width, w, l)
				}
				if strings.TrimRight(l, " ") != l {
					t.Errorf("style %d width %d: trailing blanks: %q", style, width, l)
				}
			}
			// Every word of the cause is still there, in order (a word longer
			// than the column is cut, so look for its first part).
			at := 0
			for _, w := range words {
				i := strings.Index(text[at:], w[:min(len(w), 10)])
				if i < 0 {
					t.Fatalf("style %d width %d: %q missing or out of order in\n%s", style, width, w, strings.Join(lines, "\n"))
				}
				at += i
			}
		}
	}
}

func TestPipeKeepsLinesWholeWithoutPadding(t *testing.T) {
	for _, style := range []Style{Boxed, Plain} {
		lines := draw(t, style, 0)
		found := false
		for _, l := range lines {
			found = found || strings.Contains(l, cause)
			if strings.TrimRight(l, " ") != l {
				t.Errorf("style %d: trailing blanks: %q", style, l)
			}
		}
		if !found {
			t.Errorf("style %d: the cause is not on one line:\n%s", style, strings.Join(lines, "\n"))
		}
	}
	// The plain table's last column is not padded: the short row ends at
	// its RESULT.
	for _, l := range draw(t, Plain, 0) {
		if strings.Contains(l, "fghij") && !strings.HasSuffix(l, "gone") {
			t.Errorf("plain row padded past its last cell: %q", l)
		}
	}
}

func TestWideEnoughTerminalChangesNothing(t *testing.T) {
	wide, pipe := draw(t, Plain, 1000), draw(t, Plain, 0)
	if strings.Join(wide, "\n") != strings.Join(pipe, "\n") {
		t.Errorf("a terminal wider than the table changed it:\n%s\nvs\n%s", strings.Join(wide, "\n"), strings.Join(pipe, "\n"))
	}
}

func TestWrap(t *testing.T) {
	cases := []struct {
		in    string
		limit int
		want  string
	}{
		{"a bb ccc dddd", 6, "a bb\nccc\ndddd"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
		{"x abcdefghij", 4, "x\nabcd\nefgh\nij"},
		{"keep\nbreaks", 20, "keep\nbreaks"},
		{"graceful-demo/Deployment/abrupt", 16, "graceful-demo/\nDeployment/\nabrupt"},
		{"graceful-demo/Deployment/lonely", 14, "graceful-demo/\nDeployment/\nlonely"},
		{"", 5, ""},
		{"no limit", 0, "no limit"},
	}
	for _, c := range cases {
		if got := wrap(c.in, c.limit); got != c.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
	}
}

// A table of many columns on a 120-column terminal, where wrapping the
// headers between their words makes room enough: no name is broken, and
// it fits.
func TestManyColumnsWrapHeadersBeforeNames(t *testing.T) {
	h := []string{"NAMESPACE", "WORKLOAD", "TERMINATED", "RACED", "TOO SHORT", "FEWEST READY", "BUDGET (BELOW DESIREDHEALTHY)", "VERDICT"}
	r := [][]string{{"graceful-real", "Deployment/hardened", "1", "0", "0", "2 of 3 (hardened)", "hardened: 0 ms, fewest 2 of 2", "safe"}}
	var b bytes.Buffer
	if err := Write(&b, h, r, Boxed, 120); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if twwidth.Width(l) > 120 {
			t.Errorf("line of %d columns: %q", twwidth.Width(l), l)
		}
	}
	for _, word := range []string{"graceful-real", "Deployment/hardened", "TERMINATED", "DESIREDHEALTHY)", "(hardened)"} {
		if !strings.Contains(out, word) {
			t.Errorf("%q broken:\n%s", word, out)
		}
	}
}

// On a terminal too narrow for a finding table, the object's name breaks
// after its slashes before the message narrows, so that the message, what
// a reader reads, keeps the wider column.
func TestNamesBreakAtSlashesBeforeTheMessageNarrows(t *testing.T) {
	h := []string{"OBJECT", "SEVERITY", "MESSAGE"}
	msg := "preStop (exec-sleep) takes 40 s but the grace period is 30 s: the kubelet abandons the hook when the grace period runs out"
	r := [][]string{{"graceful-demo/PodDisruptionBudget/locked", "error", msg}}
	var b bytes.Buffer
	if err := Write(&b, h, r, Plain, 80); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], " graceful-demo/ ") {
		t.Fatalf("got\n%s\nwant the name broken after graceful-demo/", b.String())
	}
	msgCol := strings.Index(lines[0], "MESSAGE")
	for _, l := range lines {
		if w := twwidth.Width(l); w > 80 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	if room := 80 - msgCol; room < 2*len("PodDisruptionBudget/") {
		t.Errorf("the message has %d columns beside a name of at most %d:\n%s", room, len("PodDisruptionBudget/"), b.String())
	}
}

// Fits measures as the tables are measured: the widest line, wide runes
// two columns, ANSI colours none.
func TestFits(t *testing.T) {
	cases := []struct {
		s     string
		width int
		want  bool
	}{
		{"abc\nabcdef", 6, true},
		{"abc\nabcdef", 5, false},
		{"结账", 4, true},
		{"结账", 3, false},
		{"\x1b[31merror\x1b[0m", 5, true},
		{"", 0, true},
	}
	for _, c := range cases {
		if got := Fits(c.s, c.width); got != c.want {
			t.Errorf("Fits(%q, %d) = %v, want %v", c.s, c.width, got, c.want)
		}
	}
}

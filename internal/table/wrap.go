package table

import (
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// wrap breaks s into lines of at most limit display columns, at blanks
// where it can and inside a word longer than limit where it must; the
// lines are joined with "\n" (tablewriter draws them as one cell).
// Existing line breaks are kept. limit < 1 returns s unchanged.
func wrap(s string, limit int) string {
	if limit < 1 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, Wrap(para, limit)...)
	}
	return strings.Join(out, "\n")
}

// Wrap breaks one line of text s into lines of at most limit display
// columns (twwidth: wide runes count two), filled greedily with its words;
// a word longer than limit is cut (cut). Tables, a terminal's long lines
// and a watch's notes all wrap with it.
func Wrap(s string, limit int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for twwidth.Width(word) > limit {
			head, rest := cut(word, limit)
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			lines = append(lines, head)
			word = rest
		}
		switch {
		case line == "":
			line = word
		case twwidth.Width(line)+1+twwidth.Width(word) <= limit:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// cut splits word after the most runes that fit in limit columns, after
// the last "/" or "-" among them (the last rune included) when there is one (names read better split
// there), and after at least one rune, so that the loop above always
// progresses.
func cut(word string, limit int) (string, string) {
	runes := []rune(word)
	n := 1
	for n < len(runes) && twwidth.Width(string(runes[:n+1])) <= limit {
		n++
	}
	for i := n; i > 0; i-- {
		if runes[i-1] == '/' || runes[i-1] == '-' {
			n = i
			break
		}
	}
	return string(runes[:n]), string(runes[n:])
}

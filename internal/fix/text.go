package fix

import (
	"sort"
	"strings"
)

// text is a manifest file as lines, so that edits replace whole lines and
// leave every other byte as it was.
type text struct {
	lines []string
	// newline is true when the file ends with a line break.
	newline bool
	// cr is "\r" for files with CRLF line breaks, else "".
	cr string
}

func newText(data string) *text {
	t := &text{newline: strings.HasSuffix(data, "\n")}
	if t.newline {
		data = data[:len(data)-1]
	}
	t.lines = strings.Split(data, "\n")
	if strings.HasSuffix(t.lines[0], "\r") {
		t.cr = "\r"
	}
	return t
}

func (t *text) String() string {
	s := strings.Join(t.lines, "\n")
	if t.newline {
		s += "\n"
	}
	return s
}

// line returns line i without its carriage return.
func (t *text) line(i int) string { return strings.TrimSuffix(t.lines[i], "\r") }

// docRange is one YAML document: lines [start, end) between separators.
type docRange struct{ start, end int }

// documents splits the text at "---" separator lines (alone or followed by
// a comment).
func (t *text) documents() []docRange {
	var out []docRange
	start := 0
	for i := range t.lines {
		if isSeparator(t.line(i)) {
			out = append(out, docRange{start, i})
			start = i + 1
		}
	}
	return append(out, docRange{start, len(t.lines)})
}

func isSeparator(l string) bool {
	if !strings.HasPrefix(l, "---") {
		return false
	}
	rest := strings.TrimSpace(l[3:])
	return rest == "" || strings.HasPrefix(rest, "#")
}

func (t *text) join(d docRange) string {
	return strings.Join(t.lines[d.start:d.end], "\n")
}

// indentOf returns the number of leading spaces of l and l without them.
func indentOf(l string) (int, string) {
	trimmed := strings.TrimLeft(l, " ")
	return len(l) - len(trimmed), trimmed
}

// entryEnd returns the line after the last line of the block mapping entry
// whose key starts at line key, column col (0-based), within lines before
// limit. The entry goes on while lines are more indented than its key, or
// are items of a sequence written at the key's own indentation (compact
// style); blank and comment lines inside it belong to it, trailing ones do
// not.
func (t *text) entryEnd(key, col, limit int) int {
	end := key + 1
	for i := key + 1; i < limit; i++ {
		ind, rest := indentOf(t.line(i))
		switch {
		case rest == "":
			continue
		case strings.HasPrefix(rest, "#"):
			if ind > col {
				continue
			}
		case ind > col, ind == col && (rest == "-" || strings.HasPrefix(rest, "- ")):
			end = i + 1
			continue
		}
		break
	}
	return end
}

// itemEnd returns the line after the last line of the sequence item whose
// dash is at line item, column dash: the lines after it that are more
// indented (blank and comment lines inside it belong to it).
func (t *text) itemEnd(item, dash, limit int) int {
	end := item + 1
	for i := item + 1; i < limit; i++ {
		ind, rest := indentOf(t.line(i))
		if rest == "" || (strings.HasPrefix(rest, "#") && ind > dash) {
			continue
		}
		if ind <= dash {
			break
		}
		end = i + 1
	}
	return end
}

// indentStep guesses the indentation a document uses for nested mappings
// (2 unless it shows another).
func (t *text) indentStep(d docRange) int {
	for i := d.start; i < d.end-1; i++ {
		ind, rest := indentOf(t.line(i))
		if strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "- ") || !strings.HasSuffix(rest, ":") {
			continue
		}
		for j := i + 1; j < d.end; j++ {
			next, nrest := indentOf(t.line(j))
			if nrest == "" || strings.HasPrefix(nrest, "#") {
				continue
			}
			if next > ind && !strings.HasPrefix(nrest, "- ") {
				return next - ind
			}
			break
		}
	}
	return 2
}

// splice replaces lines [start, end) with lines; start == end inserts.
// col orders inserts at one line: the deeper one ends up first.
type splice struct {
	start, end int
	col        int
	lines      []string
	// seq is the order splices were made in: at one insertion point and
	// depth, the earlier lands above.
	seq int
}

// apply makes the splices, which must not overlap, in one pass over the
// lines.
func (t *text) apply(ss []splice) {
	for i := range ss {
		ss[i].seq = i
	}
	sort.SliceStable(ss, func(i, j int) bool { return after(ss[i], ss[j]) })
	out := make([]string, 0, len(t.lines))
	next := 0
	for i := len(ss) - 1; i >= 0; i-- { // sorted bottom-up: walk top-down
		s := ss[i]
		out = append(out, t.lines[next:s.start]...)
		for _, l := range s.lines {
			out = append(out, l+t.cr)
		}
		next = max(next, s.end)
	}
	t.lines = append(out, t.lines[next:]...)
}

// after reports whether a is applied before b: lower in the file first;
// at one insertion point the shallower first, so the deeper lands above it.
func after(a, b splice) bool {
	if a.start != b.start {
		return a.start > b.start
	}
	if a.col != b.col {
		return a.col < b.col
	}
	return a.seq > b.seq
}

// clone returns a copy of t.
func (t *text) clone() *text {
	c := *t
	c.lines = append([]string(nil), t.lines...)
	return &c
}

// Package termsafe makes text read from the cluster safe to print on a
// terminal. Object names, annotations, event messages and container images
// are written by whoever can create objects; an escape sequence in one of
// them must not be able to move the cursor, rewrite earlier lines, set the
// window title or hide text (bidirectional overrides).
//
// It is the one place for the rule of which characters are unsafe (Unsafe)
// and for every way the project writes text out: plain lines (Escape), JSON
// (EscapeJSON, NewJSONEncoder) and YAML (MarshalYAML, YAMLStream).
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal raw: every rune that is
// not printable by Go's definition (unicode.IsPrint) except the ASCII space.
// That covers C0 controls (ESC, newline, tab), DEL, C1 controls
// (U+0080-U+009F: U+009B is a one-byte CSI), Unicode format characters
// such as the bidirectional overrides and isolates (U+202A-U+202E,
// U+2066-U+2069) and zero-width characters, line and paragraph separators,
// spaces other than U+0020, private-use and unassigned code points.
func Unsafe(r rune) bool {
	return r != ' ' && !unicode.IsPrint(r)
}

// Escape returns s with every unsafe rune (see Unsafe) and every byte of
// invalid UTF-8 replaced by its Go escape (\x1b, \n, \u202e, \xff).
// Printable text, including the ASCII space, is returned unchanged.
func Escape(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == utf8.RuneError || Unsafe(r) }) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case !Unsafe(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// Package termsafe makes text read from the cluster safe to print on a
// terminal. Object names, annotations, event messages and container images
// are written by whoever can create objects; an escape sequence in one of
// them must not be able to move the cursor, rewrite earlier lines, set the
// window title or hide text (bidirectional overrides).
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every rune that is not printable (control characters
// including ESC, newlines and tabs, C1 controls, Unicode format characters
// such as U+202E, and invalid UTF-8) replaced by its Go escape (\x1b, \n,
// \u202e). Printable text, including the ASCII space, is returned unchanged.
func Escape(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

func isSafe(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r != ' ' && !unicode.IsPrint(r)) {
			return false
		}
	}
	return true
}

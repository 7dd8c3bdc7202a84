package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// terminal reports whether w is a terminal and, if so, its width in
// columns (0 when the size cannot be read). It is the one place that asks:
// renderers are told, they never look.
func terminal(w io.Writer) (tty bool, width int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return true, 0
	}
	return true, width
}

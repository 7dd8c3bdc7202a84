package cliutil

import (
	"errors"
	"testing"
)

func TestMessageIsOneEscapedLine(t *testing.T) {
	err := errors.New("admission webhook denied the request:\n\x1b[2J\x1b]0;owned\a cleared \u009b1;1H\u202egnp.exe")
	want := `error: admission webhook denied the request: \x1b[2J\x1b]0;owned\a cleared \u009b1;1H\u202egnp.exe`
	if got := Message(err); got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
}

package callback

import "testing"

// A set callback gets its arguments; a nil one is skipped, not a panic.
func TestCall(t *testing.T) {
	var got string
	Call(func(a string, b int) { got = a }, "gap", 1)
	if got != "gap" {
		t.Errorf("set callback got %q, want gap", got)
	}
	var unset func(string, int)
	Call(unset, "note", 2)
}

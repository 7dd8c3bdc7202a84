package gapcount

import (
	"testing"
	"time"
)

func at(s int) time.Time { return time.Unix(1000+int64(s), 0) }

// One network cut ends the three watches at once: one cut, three gaps,
// not "cut 3 time(s)".
func TestOneCutOfThreeWatchesIsOneCut(t *testing.T) {
	gaps := []Gap{
		{Stream: "pod", From: at(0), To: at(5)},
		{Stream: "EndpointSlices", From: at(0), To: at(7)},
		{Stream: "Events", From: at(1), To: at(6)},
	}
	want := "the watches were cut 1 time(s): 3 gap(s) across the 3 watches (EndpointSlices, Events, pod), gaps that overlap in time counted as one cut"
	if got := Sentence(gaps); got != want {
		t.Errorf("Sentence:\n got %q\nwant %q", got, want)
	}
}

// Two cuts apart in time are two, whichever watches they cut; a gap still
// open at the end joins every later one.
func TestSeparateCutsAreCountedApart(t *testing.T) {
	gaps := []Gap{
		{Stream: "pod", From: at(0), To: at(2)},
		{Stream: "Events", From: at(1), To: at(3)},
		{Stream: "pod", From: at(10), To: at(12)},
		{Stream: "Events", From: at(20)},
		{Stream: "pod", From: at(30), To: at(31)},
	}
	if n, s := Cuts(gaps); n != 3 || len(s) != 2 {
		t.Errorf("Cuts = %d over %v, want 3 over [Events pod]", n, s)
	}
	one := []Gap{{Stream: "pod", From: at(0), To: at(1)}, {Stream: "pod", From: at(5), To: at(6)}}
	if got, want := Sentence(one), "the pod watch was cut 2 time(s)"; got != want {
		t.Errorf("Sentence = %q, want %q", got, want)
	}
	if got := Sentence(nil); got != "" {
		t.Errorf("Sentence(nil) = %q, want empty", got)
	}
}

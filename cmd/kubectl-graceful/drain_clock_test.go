package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The drain's and the watch's lines, written from two goroutines through
// the one writer, each start with the one clock's stamp, non-decreasing
// in the order written; a line written in pieces gets one stamp; after
// unstamp the summary is written as it is.
func TestSyncWriterStampsOneClock(t *testing.T) {
	var out bytes.Buffer
	sw := &syncWriter{w: &out}
	sw.stamp(time.Now().Add(-1500 * time.Millisecond))
	var wg sync.WaitGroup
	for _, who := range []string{"drain", "watch"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				_, _ = sw.Write([]byte(who + " line " + strconv.Itoa(i) + "\n"))
			}
		}()
	}
	wg.Wait()
	_, _ = sw.Write([]byte("part one, "))
	_, _ = sw.Write([]byte("part two\nnext\n"))
	sw.unstamp()
	_, _ = sw.Write([]byte("summary\n"))

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	stamp := regexp.MustCompile(`^\[\+(\d+\.\d{3}) s\] (.*)$`)
	last := 0.0
	for _, l := range lines[:len(lines)-1] {
		m := stamp.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q has no stamp", l)
		}
		at, _ := strconv.ParseFloat(m[1], 64)
		if at < last || at < 1.5 {
			t.Errorf("stamp %.3f after %.3f (start 1.5 s ago)", at, last)
		}
		last = at
	}
	if got := lines[len(lines)-3]; !strings.HasSuffix(got, "] part one, part two") {
		t.Errorf("a line written in two pieces: %q", got)
	}
	if lines[len(lines)-1] != "summary" {
		t.Errorf("after unstamp: %q", lines[len(lines)-1])
	}
}

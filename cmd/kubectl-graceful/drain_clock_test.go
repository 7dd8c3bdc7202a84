package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	trender "github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
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
	stamp := regexp.MustCompile(`^\[\+ *(\d+\.\d{3}) s\] (.*)$`)
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

// A line the watch fitted to the room the stamp leaves still fits
// LineWidth columns once stamped, however long the drain has run: past
// 100 s (where "[+123.456 s]" outgrew the old 12 columns), past 1000 s
// and after hours; the stamp stays readable as seconds.
func TestStampKeepsItsWidth(t *testing.T) {
	fitted := strings.Repeat("x", trender.LineWidth-stampWidth)
	for _, c := range []struct {
		since time.Duration
		want  string
	}{
		{1500 * time.Millisecond, "[+  1.500 s] "},
		{99999 * time.Millisecond, "[+ 99.999 s] "},
		{123456 * time.Millisecond, "[+123.456 s] "},
		{1234567 * time.Millisecond, "[+1234.57 s] "},
		{7*time.Hour + 12345*time.Millisecond, "[+25212.3 s] "},
		{40 * 24 * time.Hour, "[+3456000 s] "},
	} {
		if got := stampText(c.since); got != c.want {
			t.Errorf("stampText(%s) = %q, want %q", c.since, got, c.want)
		}
		var out bytes.Buffer
		sw := &syncWriter{w: &out}
		sw.stamp(time.Now().Add(-c.since))
		_, _ = sw.Write([]byte(fitted + "\n"))
		if line := strings.TrimSuffix(out.String(), "\n"); len([]rune(line)) > trender.LineWidth {
			t.Errorf("after %s: %d columns, want at most %d: %q", c.since, len([]rune(line)), trender.LineWidth, line)
		}
	}
}

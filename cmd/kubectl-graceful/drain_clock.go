package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// syncWriter serialises the lines of the drain's progress and of the
// watch, written from two goroutines. Once stamp is called it starts
// every line with one clock for both, the seconds since the drain's start
// at the moment the line is written ("[+ 12.345 s] ", stampText), so that a reader can
// order the drain's lines (timed from each node's start) and the watch's
// (timed from the first deletion); unstamp stops it for the summary.
type syncWriter struct {
	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	midLine bool
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start.IsZero() {
		return s.w.Write(p)
	}
	stamp := stampText(time.Since(s.start))
	var b bytes.Buffer
	for rest := p; len(rest) > 0; {
		if !s.midLine {
			b.WriteString(stamp)
		}
		line, tail, found := bytes.Cut(rest, []byte("\n"))
		b.Write(line)
		if found {
			b.WriteByte('\n')
		}
		s.midLine, rest = !found, tail
	}
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// stampWidth is the columns of every stamp (stampText), which the
// watch's lines and the drain's progress leave room for.
const stampWidth = 13

// stampDigits is the columns of a stamp's seconds.
const stampDigits = stampWidth - len("[+ s] ")

// stampText is d as a stamp of stampWidth columns: the seconds right
// aligned with three decimals up to 999.999 s, fewer decimals after, so
// that a drain that runs for hours still fits the lines' room (whole
// seconds keep the width up to 115 days).
func stampText(d time.Duration) string {
	secs := d.Seconds()
	n := ""
	for prec := 3; prec >= 0; prec-- {
		if n = strconv.FormatFloat(secs, 'f', prec, 64); len(n) <= stampDigits {
			break
		}
	}
	return fmt.Sprintf("[+%*s s] ", stampDigits, n)
}

// stamp starts the clock at start; unstamp ends the stamps.
func (s *syncWriter) stamp(start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start = start
}

func (s *syncWriter) unstamp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start, s.midLine = time.Time{}, false
}

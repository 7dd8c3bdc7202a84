package harness

import (
	"strconv"
	"strings"
	"time"
)

// textLatencies returns, for every watch line of `drain node --watch`'s
// text output (those starting "+N ms": N milliseconds on the watch's
// clock, whose start, the first pod deletion it saw, is not printed), its
// arrival minus N, less the smallest such difference over all the lines:
// each line's delivery-to-line delay beyond the fastest line's (which is
// taken as 0). N is truncated to the millisecond, so each figure is up to
// 1 ms high or low. Lines at "start" or "before" the clock, gap lines
// and the drain's own lines are left out.
func (l *lineClock) textLatencies() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bases []time.Time
	for _, ln := range l.lines {
		if n, ok := watchLineMs(string(ln.text)); ok {
			bases = append(bases, ln.at.Add(-time.Duration(n)*time.Millisecond))
		}
	}
	if len(bases) == 0 {
		return nil
	}
	first := bases[0]
	for _, b := range bases {
		if b.Before(first) {
			first = b
		}
	}
	out := make([]time.Duration, len(bases))
	for i, b := range bases {
		out[i] = b.Sub(first)
	}
	return out
}

// beforeClock counts the watch lines printed "before" the watch's clock
// started (its first pod deletion seen): delivered, but with no offset to
// measure them by.
func (l *lineClock) beforeClock() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ln := range l.lines {
		if f := watchFields(string(ln.text)); len(f) > 1 && f[0] == "before" {
			n++
		}
	}
	return n
}

// watchFields splits a live line into fields, without the drain's clock
// ("[+  1.234 s]" right aligned, "[+1.234 s]" and "[+1.234s]" before)
// that drain --watch starts every line with.
func watchFields(line string) []string {
	f := strings.Fields(line)
	if len(f) == 0 || !strings.HasPrefix(f[0], "[+") {
		return f
	}
	for i, s := range f {
		if strings.HasSuffix(s, "]") {
			return f[i+1:]
		}
	}
	return f
}

// watchLineMs parses a node watch text line, "   +512 ms  15:04:05  NODE
// ...", with or without the drain's clock before it, into its offset in
// milliseconds; gap lines ("--------" in the server column) are not
// deliveries.
func watchLineMs(line string) (int64, bool) {
	f := watchFields(line)
	if len(f) < 3 || f[1] != "ms" || f[2] == "--------" || !strings.HasPrefix(f[0], "+") {
		return 0, false
	}
	n, err := strconv.ParseInt(f[0][1:], 10, 64)
	return n, err == nil
}

// text returns the complete lines received, each ending in a newline.
func (l *lineClock) text() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b []byte
	for _, ln := range l.lines {
		b = append(append(b, ln.text...), '\n')
	}
	return b
}

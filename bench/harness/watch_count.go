package harness

import (
	"fmt"
	"net/url"
	"strings"
)

// watchCount is what client-go's request log (-v 6) says of a command's
// API watches.
type watchCount struct {
	// targets are the distinct things watched: the URL path with its
	// labelSelector and fieldSelector, whatever resourceVersion,
	// timeoutSeconds or allowWatchBookmarks each request carried. A watch
	// resumed or re-opened after a re-list (a new resourceVersion) is the
	// same target.
	targets int
	// requests are the watch requests made, re-watches included.
	requests int
}

// countWatches reads client-go's "Response verb=... url=..." lines of a
// -v 6 log and counts the watch requests (URLs with watch=true) and their
// targets. The plugin's log writes each of client-go's lines twice in a
// row; a line identical to the log line just before it is taken for that
// copy. A copy separated from its line by another goroutine's line is
// counted as a second request: the count errs high, never low.
func countWatches(stderr string) watchCount {
	var c watchCount
	targets := map[string]bool{}
	prev := ""
	for _, line := range strings.Split(stderr, "\n") {
		dup := line == prev
		prev = line
		target, ok := watchTarget(line)
		if !ok || dup {
			continue
		}
		c.requests++
		targets[target] = true
	}
	c.targets = len(targets)
	return c
}

// watchTarget returns the target of a logged watch request (path, then
// labelSelector and fieldSelector), false for a line that logs none.
func watchTarget(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, ` url="`)
	if !ok {
		return "", false
	}
	raw, _, _ := strings.Cut(rest, `"`)
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	q := u.Query()
	if q.Get("watch") != "true" && q.Get("watch") != "1" {
		return "", false
	}
	return u.Path + "?labelSelector=" + q.Get("labelSelector") + "&fieldSelector=" + q.Get("fieldSelector"), true
}

// watchCell is a watch count as the table shows it: the targets, then the
// requests behind them.
func watchCell(c watchCount) string {
	return fmt.Sprintf("%d (%d watch requests, re-watches included)", c.targets, c.requests)
}

package e2e

import (
	"net/url"
	"strings"
)

// Target is what a request reads, whatever resourceVersion, timeout or
// watch options it carried: its path, labelSelector and fieldSelector.
// A stream's list, its watch and the watches it resumes share one.
func (r ClientRequest) Target() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return r.URL
	}
	q := u.Query()
	return u.Path + "?labelSelector=" + q.Get("labelSelector") + "&fieldSelector=" + q.Get("fieldSelector")
}

// OpensWatchList reports whether r is a watch list
// (sendInitialEvents=true): the one request that opens a stream of the
// plugin's (listwatch.Stream) where the API server serves it.
func (r ClientRequest) OpensWatchList() bool {
	u, err := url.Parse(r.URL)
	return err == nil && r.Verb == "GET" && u.Query().Get("watch") == "true" && u.Query().Get("sendInitialEvents") == "true"
}

// Repeats are the requests a stream of one target sent on its own after
// it opened, because of the API server, not of the command.
type Repeats struct {
	// Watches resumed from a resourceVersion: after a dropped connection,
	// or after the List below.
	Watches int
	// Lists a stream opened by a watch list fell back to, when the API
	// server ended the watch list before its initial events did (under
	// load: its cache not fresh in time). Each is followed by a watch, so
	// they are at most Watches; a List of the same target by someone else
	// while a stream resumed is taken for one: the count errs toward
	// repeats in that case.
	Lists int
}

// StreamRepeats reads reqs (ClientRequests) by Target: for a target opened
// by a watch list, every other watch of it and as many of its Lists as
// those watches; for a target opened by a List then a watch, every watch
// after the first. A target read twice at once (two streams) has its
// second stream counted as repeats: count the opens (OpensWatchList) to
// tell.
func StreamRepeats(reqs []ClientRequest) map[string]Repeats {
	type count struct{ watchLists, watches, lists int }
	by := map[string]*count{}
	for _, r := range reqs {
		c := by[r.Target()]
		if c == nil {
			c = &count{}
			by[r.Target()] = c
		}
		switch kind := r.Kind(); {
		case r.OpensWatchList():
			c.watchLists += r.Count
		case strings.HasPrefix(kind, "WATCH "):
			c.watches += r.Count
		case strings.HasPrefix(kind, "LIST "):
			c.lists += r.Count
		}
	}
	out := map[string]Repeats{}
	for t, c := range by {
		var rep Repeats
		if c.watchLists > 0 {
			rep = Repeats{Watches: c.watches, Lists: min(c.lists, c.watches)}
		} else if c.watches > 1 {
			rep.Watches = c.watches - 1
		}
		if rep != (Repeats{}) {
			out[t] = rep
		}
	}
	return out
}

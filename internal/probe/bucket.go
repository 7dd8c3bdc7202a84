package probe

import (
	"sort"
	"sync"
	"time"
)

// aggregator groups results by the bucket of their start and hands out
// each bucket, in order, once it is complete.
type aggregator struct {
	origin   time.Time
	onBucket func(Bucket)

	mu      sync.Mutex
	pending map[int]int // requests in flight by bucket index
	results map[int][]Result
	next    int // the next bucket index to hand out
	emit    sync.Mutex
}

func (a *aggregator) index(t time.Time) int { return int(t.Sub(a.origin) / BucketWidth) }

// started counts a request about to start at t and returns its bucket.
func (a *aggregator) started(t time.Time) int {
	a.mu.Lock()
	idx := max(a.index(t), a.next) // a.next: its bucket was handed out an instant ago
	a.pending[idx]++
	a.mu.Unlock()
	a.flush(false)
	return idx
}

// done counts a request of bucket idx as finished with result r, nil when
// it has no result to report.
func (a *aggregator) done(idx int, r *Result) {
	a.mu.Lock()
	a.pending[idx]--
	if r != nil {
		a.results[idx] = append(a.results[idx], *r)
	}
	a.mu.Unlock()
	a.flush(false)
}

// flush hands out the complete buckets in order: those whose span has
// passed and that have nothing in flight (every bucket when final).
// Buckets without any request are skipped.
func (a *aggregator) flush(final bool) {
	a.emit.Lock()
	defer a.emit.Unlock()
	now := a.index(time.Now())
	var ready []Bucket
	a.mu.Lock()
	for ; final || a.next < now; a.next++ {
		if a.pending[a.next] > 0 {
			break
		}
		if rs := a.results[a.next]; len(rs) > 0 {
			sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
			ready = append(ready, Bucket{From: a.origin.Add(time.Duration(a.next) * BucketWidth), Results: rs})
		}
		delete(a.results, a.next)
		delete(a.pending, a.next)
		if final && len(a.pending) == 0 && len(a.results) == 0 {
			a.next++
			break
		}
	}
	a.mu.Unlock()
	for _, b := range ready {
		a.onBucket(b)
	}
}

package listwatch

import (
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// afterWatch says what follow does after a watch ended.
type afterWatch int

const (
	resume afterWatch = iota // open a watch from the last resourceVersion
	relist                   // the resourceVersion expired: List again
	stop                     // ctx ended or the stream failed for good
)

// follow watches from r.rv (open, a watch list's watch, first when not
// nil) until the resourceVersion expires (true: re-list) or the stream
// ends (false). Each watch is read to its end here, so every event it
// delivered is sent before the gap its end opens.
func (r *run) follow(open watch.Interface) bool {
	var started time.Time
	wait := time.Duration(0)
	for {
		if !started.IsZero() {
			wait = max(wait, r.delay-time.Since(started))
		}
		if wait > 0 && !r.sleep(wait) {
			return false
		}
		started, wait = time.Now(), 0
		w, n := open, resume
		if open = nil; w == nil {
			w, n = r.open()
		}
		if w != nil {
			n, wait = r.read(w)
			w.Stop()
		}
		switch n {
		case relist:
			return true
		case stop:
			return false
		}
	}
}

// open starts a watch from r.rv and closes an open gap; nil and what to do
// when it fails.
func (r *run) open() (watch.Interface, afterWatch) {
	if r.rv == "" || r.rv == "0" {
		// A watch from "" or "0" starts at any point the API server
		// likes, not where the List was read (client-go's RetryWatcher
		// refuses it likewise): changes in between would be lost unseen.
		r.send(Notice{Kind: KindError, Err: fmt.Errorf("the List carried no resourceVersion to watch from (%q)", r.rv)})
		return nil, stop
	}
	w, err := r.LW.WatchWithContext(r.ctx, metav1.ListOptions{ResourceVersion: r.rv, AllowWatchBookmarks: true})
	switch {
	case r.ctx.Err() != nil:
		if w != nil {
			w.Stop()
		}
		return nil, stop
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		return nil, r.ended(relist, r.openGap(fmt.Sprintf("watch ended: %v", err)))
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		r.send(Notice{Kind: KindError, Err: err})
		return nil, stop
	case err != nil:
		return nil, r.ended(resume, r.openGap(fmt.Sprintf("watch could not be reopened: %v", err)))
	case w == nil:
		return nil, r.ended(resume, r.openGap("watch could not be reopened"))
	}
	if r.gap && !r.send(Notice{Kind: KindGapClose}) {
		w.Stop()
		return nil, stop
	}
	return w, resume
}

// ended is n, or stop when the notice about it was not sent.
func (r *run) ended(n afterWatch, sent bool) afterWatch {
	if !sent {
		return stop
	}
	return n
}

// read sends w's events until it ends, keeping the resourceVersion of each
// (bookmarks included, which are not sent), and says what to do afterWatch and
// how long the API server asked to wait first (Retry-After).
func (r *run) read(w watch.Interface) (afterWatch, time.Duration) {
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-w.ResultChan():
		case <-r.ctx.Done():
			return stop, 0
		}
		recv := time.Now()
		if !ok {
			return r.ended(resume, r.openGap("watch connection closed")), 0
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
			m, err := meta.Accessor(ev.Object)
			if err != nil || m.GetResourceVersion() == "" {
				// Resuming would skip or repeat changes: start afresh.
				return r.ended(relist, r.openGap(fmt.Sprintf("watch sent %s without a resourceVersion", ev.Type))), 0
			}
			r.rv = m.GetResourceVersion()
			if ev.Type != watch.Bookmark && !r.send(Notice{Recv: recv, Kind: KindEvent, Event: &ev}) {
				return stop, 0
			}
		case watch.Error:
			return r.watchError(ev, recv)
		default:
			return r.ended(relist, r.openGap(fmt.Sprintf("watch sent an event of unknown type %q", ev.Type))), 0
		}
	}
}

// watchError reads a watch's ERROR event as client-go's RetryWatcher does:
// 410 Gone re-lists, a refusal ends the stream, anything else resumes
// after the Retry-After it may carry.
func (r *run) watchError(ev watch.Event, recv time.Time) (afterWatch, time.Duration) {
	status := apierrors.FromObject(ev.Object)
	if apierrors.IsForbidden(status) || apierrors.IsUnauthorized(status) {
		r.send(Notice{Recv: recv, Kind: KindError, Err: status})
		return stop, 0
	}
	reason := fmt.Sprintf("watch ended: %v", status)
	var st metav1.Status
	if s, ok := status.(apierrors.APIStatus); ok {
		st = s.Status()
	}
	if st.Code == http.StatusGone || apierrors.IsGone(status) || apierrors.IsResourceExpired(status) {
		return r.ended(relist, r.send(Notice{Recv: recv, Kind: KindGapOpen, Reason: reason})), 0
	}
	var after time.Duration
	if st.Details != nil {
		after = time.Duration(st.Details.RetryAfterSeconds) * time.Second
	}
	return r.ended(resume, r.openGap(reason)), after
}

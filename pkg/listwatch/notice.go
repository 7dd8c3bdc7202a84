package listwatch

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Kind says what a Notice reports, and so which of its fields are set.
type Kind int

const (
	// KindList is the result of a List (the stream's first one, or a
	// re-list after the watch expired with 410 Gone): Notice.List holds the
	// objects and Notice.Initial says whether it is the first.
	KindList Kind = iota + 1
	// KindEvent is one watch notification (ADDED, MODIFIED, DELETED, or a
	// BOOKMARK): Notice.Event.
	KindEvent
	// KindGapOpen is the watch losing its connection: changes may be
	// missed until the KindGapClose. Notice.Reason says why.
	KindGapOpen
	// KindGapClose is the watch resumed, or replaced by a List when
	// Notice.Relisted (the resourceVersion had expired).
	KindGapClose
	// KindError ends the stream: the List or watch is forbidden, the first
	// List failed, or a shared stream stopped. Notice.Err.
	KindError
)

// Notice is what a Stream reports, stamped with the local monotonic time
// at which it was received.
type Notice struct {
	// Stream is the name of the Stream that reported it; Key its Key.
	Stream string
	Key    Key
	Recv   time.Time
	Kind   Kind
	// Event is a KindEvent's notification.
	Event *watch.Event
	// List is a KindList's objects; Initial marks the stream's first List.
	List    []runtime.Object
	Initial bool
	// Relisted says a KindGapClose ended with a List.
	Relisted bool
	// Reason says why a KindGapOpen's watch ended.
	Reason string
	// Err is a KindError's error.
	Err error
}

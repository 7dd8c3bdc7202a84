package timeline

import (
	"context"
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// handle feeds one notice to the recorder. It returns an error only when the
// pod itself cannot be watched; EndpointSlices or Events that cannot be
// watched degrade the timeline with a note.
func (f *follower) handle(_ context.Context, n listwatch.Notice) error {
	if n.Kind == listwatch.KindError {
		return f.streamFailed(n)
	}
	f.rec.Handle(n)
	if f.rec.gone && !f.acted {
		return fmt.Errorf("pod %s/%s was deleted before the watch started", f.cfg.Namespace, f.cfg.Name)
	}
	return nil
}

func (f *follower) streamFailed(n listwatch.Notice) error {
	tl := f.rec.TL
	switch n.Stream {
	case StreamPods:
		return fmt.Errorf("watching pod %s/%s: %w", tl.Namespace, tl.Pod, n.Err)
	case StreamEndpointSlices:
		tl.EndpointsUnseen = true
		f.note(fmt.Sprintf("cannot watch EndpointSlices (%v): the endpoint track is missing, the race cannot be judged", n.Err))
	case ingress.StreamName:
		tl.IngressUnseen = true
		f.note(fmt.Sprintf("cannot read the Ingress controller's API at %s (%v): when it stopped sending the pod new requests is not seen", tl.IngressAPI, n.Err))
	case StreamEvents:
		tl.EventsUnseen = true
		f.note(fmt.Sprintf("cannot watch Events (%v): Killing and FailedPreStopHook are not seen, SIGTERM is estimated from the delete request", n.Err))
	}
	return nil
}

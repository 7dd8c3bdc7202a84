package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// drainWatch is `drain node --watch`: the node watch over the drain's own
// evictions, in the same process.
type drainWatch struct {
	o *drainNodeOptions
	// clock is the one writer of the drain's and the watch's lines: o.Out,
	// or behind o.Out's lineFitter, narrowed by the stamp, on a terminal.
	clock *syncWriter
	// fitWidth is the terminal's width when o.Out fits lines, else 0.
	fitWidth int
	stop     context.CancelCauseFunc
	done     chan struct{}
	w        *nodewatch.Watch
	err      error
	// watches shares the watch's streams of each node's pods and of the
	// budgets with the drain (Drainer.Watches): one watch of each, not two.
	watches *listwatch.Hub
	// cordons tells the watch which nodes the drain cordoned (events).
	cordons *ownCordons
}

// fitted is the clock, fitted to the terminal less margin columns when
// o.Out was fitted.
func (dw *drainWatch) fitted(margin int) io.Writer {
	if dw.fitWidth == 0 {
		return dw.clock
	}
	return lineFitter{w: dw.clock, width: dw.fitWidth - margin}
}

// events returns ev with dw.cordons told, first, of each cordon and each
// node done.
func (dw *drainWatch) events(ev drain.Events) drain.Events {
	ev.NodeCordoned = then2(dw.cordons.cordoned, ev.NodeCordoned)
	ev.NodeDone = then(dw.cordons.done, ev.NodeDone)
	return ev
}

// watchSetup bounds the wait for the watch's first Lists before the
// drain starts, and watchTail the wait for its end after the drain.
const (
	watchSetup = 30 * time.Second
	watchTail  = 30 * time.Second
)

// startWatch starts the node watch and waits until it sees every
// termination from its start (or watchSetup passed, said so). From then
// on o.Out is clock, which stamps every line of both; on a terminal the
// lines are fitted before they are stamped, so that a sentence broken in
// two keeps its stamp and its indent on both lines.
func (o *drainNodeOptions) startWatch(ctx context.Context) *drainWatch {
	clock := &syncWriter{w: o.Out}
	dw := &drainWatch{o: o, clock: clock, done: make(chan struct{})}
	if fit, ok := o.Out.(lineFitter); ok {
		clock.w, dw.fitWidth = fit.w, fit.width
	}
	o.Out = dw.fitted(stampWidth)
	clock.stamp(time.Now())
	wctx, stop := context.WithCancelCause(ctx)
	dw.stop = stop
	names := make([]string, 0, len(o.nodes))
	for _, n := range o.nodes {
		names = append(names, n.Name)
	}
	ready := make(chan struct{})
	dw.watches = sharedWatches(names)
	dw.cordons = newOwnCordons(names, o.drainer.Timeout)
	cfg := nodewatch.Config{Client: o.drainer.Client, Nodes: names, Settle: 2 * time.Second, CordonedHere: dw.cordons.CordonedHere,
		Printer: render.NodeLinePrinter(o.Out, render.NodeLines{Wide: o.wide, Stamped: true, StampWidth: stampWidth}), Ready: func() { close(ready) }, Watches: dw.watches,
		IngressAPI: o.ingressAPI}
	if o.drainer.PodSelector != "" {
		// Validated already: the drain takes only these pods.
		cfg.PodSelector, _ = labels.Parse(o.drainer.PodSelector)
	}
	if o.selector != "" {
		// A pool picked by -l: the watch lists it with one request where
		// it would read each named node once.
		cfg.Nodes, cfg.Selector = nil, o.selector
	}
	go func() {
		defer close(dw.done)
		dw.w, dw.err = nodewatch.Follow(wctx, cfg)
		// From then on the drain reads the API server itself.
		dw.watches.Close()
	}()
	select {
	case <-ready:
	case <-dw.done:
	case <-time.After(watchSetup):
		fmt.Fprintf(o.ErrOut, "warning: --watch: the watches did not list within %s; the drain goes on, the first terminations may be seen late\n", watchSetup)
	}
	return dw
}

// sharedWatches is the Hub of the node watch's streams the drain reads:
// the pods of each of nodes and the budgets.
func sharedWatches(nodes []string) *listwatch.Hub {
	keys := []listwatch.Key{listwatch.Budgets}
	for _, n := range nodes {
		keys = append(keys, listwatch.PodsOnNode(n))
	}
	return listwatch.NewHub(keys...)
}

// finish ends the watch (at once when the drain failed, else once the
// nodes are empty, within watchTail), prints its table and verdict, and
// returns the drain's own outcome first, then cliutil.Risk() for a risk.
func (dw *drainWatch) finish(drainErr error) error {
	o := dw.o
	if drainErr != nil {
		dw.stop(nodewatch.ErrStopped)
	}
	select {
	case <-dw.done:
	case <-time.After(watchTail):
		dw.stop(nodewatch.ErrStopped)
		<-dw.done
	}
	if dw.w == nil {
		fmt.Fprintf(o.ErrOut, "warning: --watch: %s; no verdict on the terminations\n", termsafe.Escape(fmt.Sprint(dw.err)))
		return drainErr
	}
	dw.clock.unstamp()
	o.Out = dw.fitted(0)
	v := nodewatch.ComputeWith(dw.w, timeline.Options{Propagation: o.propagation})
	return watchOutcome(nodeWatchSummary(o.width).write(watchSink{out: o.Out}, dw.w, v), drainErr, v.Risk)
}

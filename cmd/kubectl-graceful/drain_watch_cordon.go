package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// ownCordonWait bounds how long the watch waits for the answer to this
// drain's cordon of a node it saw cordoned: the node watch may deliver
// the change before the patch's answer is read.
const ownCordonWait = 10 * time.Second

// ownCordons tells the node watch of `drain node --watch` which nodes this
// drain cordoned (drain.Events.NodeCordoned), so that it names the cordon
// "cordoned by this drain" (nodewatch.Config.CordonedHere): no mark on the
// node says so, but the drain knows.
type ownCordons struct {
	mu sync.Mutex
	// answered is closed once the drain knows whether it cordoned the
	// node: its cordon answered, or the node done without one.
	answered map[string]chan struct{}
	byUs     map[string]bool
	deadline string
}

// newOwnCordons is for the drain of nodes under timeout (--timeout, 0:
// no limit).
func newOwnCordons(nodes []string, timeout time.Duration) *ownCordons {
	c := &ownCordons{answered: map[string]chan struct{}{}, byUs: map[string]bool{},
		deadline: "none: --timeout 0 waits without limit"}
	if timeout > 0 {
		c.deadline = fmt.Sprintf("this drain's --timeout %s, from the node's turn", timeout)
	}
	for _, n := range nodes {
		c.answered[n] = make(chan struct{})
	}
	return c
}

// cordoned records the answer to the drain's cordon of node
// (drain.Events.NodeCordoned).
func (c *ownCordons) cordoned(node string, byUs bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byUs[node] = byUs
	c.answer(node)
}

// done answers for a node whose drain ended, cordoned or not
// (drain.Events.NodeDone).
func (c *ownCordons) done(res *drain.NodeResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer(res.Node)
}

// answer closes node's channel once; c.mu is held.
func (c *ownCordons) answer(node string) {
	ch, ok := c.answered[node]
	if !ok {
		return
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// CordonedHere is nodewatch.Config.CordonedHere: whether this drain's own
// patch cordoned node, waiting up to ownCordonWait for its answer.
func (c *ownCordons) CordonedHere(node string) (string, bool) {
	c.mu.Lock()
	ch, ok := c.answered[node]
	c.mu.Unlock()
	if !ok {
		return "", false
	}
	select {
	case <-ch:
	case <-time.After(ownCordonWait):
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline, c.byUs[node]
}

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// addPropagationFlag adds --propagation, for every watch (one pod or a
// rollout's pods): the same name, default and meaning. Its default is the
// audit's preStop floor, so that a preStop that passes the audit passes
// the watch.
func addPropagationFlag(f *pflag.FlagSet, d *time.Duration) {
	floor := time.Duration(inspect.DefaultOptions().PreStopFloorSeconds) * time.Second
	f.DurationVar(d, "propagation", floor, "Time kube-proxy, Ingress controllers and load balancers need to stop sending traffic, counted from the delete request (the audit's --prestop-floor); a pod told to stop sooner is a risk")
}

// addWideFlag adds --wide: live lines with every column and whole
// messages instead of lines that fit render.LineWidth columns; columns
// names the columns only --wide shows, if any.
func addWideFlag(f *pflag.FlagSet, wide *bool, columns string) {
	f.BoolVar(wide, "wide", false, "Live lines with every column"+columns+" and whole messages; by default they fit 120 columns")
}

// validatePropagation refuses a --propagation that is not positive.
func validatePropagation(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("--propagation %s is not allowed: use a positive duration such as 5s", d)
	}
	return nil
}

// noTermination is the error for a watch that ended before any termination
// was seen: there is nothing to judge, so no verdict is printed, only what
// happened. A refused delete or eviction (forbidden, denied by admission,
// not found) keeps its own error. A request cut short by the deadline or
// Ctrl-C counts as the timeout or the interruption it is.
func (o *watchPodOptions) noTermination(tl *timeline.Timeline, err error) error {
	pod := tl.Namespace + "/" + tl.Pod
	var end string
	switch {
	case err == nil:
		return fmt.Errorf("no termination of pod %s was seen: no verdict", pod)
	case errors.As(err, new(*eviction.TimeoutError)) || errors.Is(err, context.DeadlineExceeded):
		end = fmt.Sprintf("--timeout %s ran out", o.timeout)
	case errors.Is(err, timeline.ErrInterrupted) || errors.Is(err, context.Canceled):
		end = "the watch was interrupted"
	default:
		return err
	}
	if refusal := strings.TrimSuffix(lastRefusal(tl), "; retrying"); refusal != "" {
		return fmt.Errorf("the eviction of pod %s was refused until %s (last answer: %s): not evicted, no termination to judge, no verdict", pod, end, refusal)
	}
	if o.delete || o.evict {
		return fmt.Errorf("pod %s was not deleted before %s: no termination to judge, no verdict", pod, end)
	}
	return fmt.Errorf("nobody deleted pod %s before %s: no termination to judge, no verdict", pod, end)
}

// lastRefusal returns the message of the last refused eviction of tl, ""
// when none was refused.
func lastRefusal(tl *timeline.Timeline) string {
	for i := len(tl.Events) - 1; i >= 0; i-- {
		if tl.Events[i].Kind == timeline.KindEvictionRefused {
			return tl.Events[i].Message
		}
	}
	return ""
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// watchPodOptions are the inputs of `kubectl graceful watch pod NAME`.
type watchPodOptions struct {
	watchFlags

	namespace string
	name      string
	// delete and evict start the termination; neither waits for someone
	// else to delete the pod.
	delete bool
	evict  bool
	// gracePeriod is the grace period in seconds for --delete/--evict; -1
	// keeps the pod's terminationGracePeriodSeconds.
	gracePeriod int64
}

// newCmdWatch builds `kubectl graceful watch`: `watch pod NAME` is its
// subcommand, `watch TYPE/NAME` (a workload) its own arguments.
func newCmdWatch(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, in *interrupt) *cobra.Command {
	w := watchFlags{configFlags: configFlags, IOStreams: streams, interrupt: in}
	cmd := newCmdWatchWorkload(&watchWorkloadOptions{watchFlags: w})
	cmd.AddCommand(newCmdWatchPod(&watchPodOptions{watchFlags: w}), newCmdWatchNode(&watchNodeOptions{watchFlags: w}))
	return cmd
}

// newCmdWatchPod builds `kubectl graceful watch pod NAME` around o.
func newCmdWatchPod(o *watchPodOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pod NAME [--delete [--grace-period N] | --evict]",
		Short: "Show a pod's termination on two tracks and give a verdict on the endpoint race",
		Long: `Follows one pod's termination: the control plane (deletion, EndpointSlice
ready/serving/terminating of every Service that selects it, removal) and the
kubelet (Killing, preStop, estimated SIGTERM, exit code, SIGKILL), each change
printed as it happens in milliseconds since the delete request, then a chart
and a verdict. Without --delete or --evict it waits for the pod to be deleted.

A pod told to stop (SIGTERM) sooner than --propagation after the delete
request is a risk: kube-proxy, Ingress controllers and cloud load balancers
take seconds to stop sending traffic. When a Service has no other ready
endpoint, kube-proxy keeps sending traffic to the terminating pod until it
stops serving, and the verdict is measured from then.

With --probe URL it also sends GET requests to URL (--probe-rate a second,
a new connection each unless --probe-keepalive) and shows them as a third
track, requests: the failed ones, when, and how (502, connection refused,
reset, timeout). The URL must answer 2xx/3xx once before anything is deleted.
Probe the public Ingress or load balancer URL: a port-forward bypasses
kube-proxy and the load balancers and shows nothing (see docs/probe.md).

Exit status: 0 safe, 2 a risk was seen (race window, a window shorter than
--propagation, a sidecar stopped before the app, SIGKILL, FailedPreStopHook,
a watch cut or stalled while the race was decided: cannot tell,
a failed probe request),
1 no verdict: an error (pod not found, cluster unreachable, the delete or
eviction refused) or no termination before --timeout or Ctrl-C.`,
		Example: `  kubectl graceful watch pod web-7d4b9c -n shop --delete
  kubectl graceful watch pod web-7d4b9c --evict --timeout 5m
  kubectl graceful watch pod web-7d4b9c --delete -o mermaid > incident.md
  kubectl graceful watch pod web-7d4b9c --delete --probe https://shop.example.com/healthz`,
		Args:              argsWithin(1, 1, "one pod", "watch pod NAME"),
		ValidArgsFunction: completePod(o.configFlags),
		RunE:              runE(o),
	}
	f := cmd.Flags()
	f.BoolVar(&o.delete, "delete", false, "Delete the pod, then watch it terminate")
	f.BoolVar(&o.evict, "evict", false, "Evict the pod through the Eviction API (policy/v1), retrying while a PodDisruptionBudget refuses")
	f.Int64Var(&o.gracePeriod, "grace-period", -1, "Grace period in seconds for --delete or --evict; -1 keeps the pod's own")
	o.add(cmd, watchFlagHelp{settleAfter: "after the pod is gone", timeout: 10 * time.Minute,
		timeoutHelp: "Give up after this long (eviction retries included); 0 means no limit", wideAdds: " (the server's time)", probe: true})
	return cmd
}

// watchFormats are the -o values of every watch ("" for lines, a chart
// and a verdict).
var watchFormats = []string{"", "json", "yaml", "mermaid"}

// Complete reads the namespace from the kubeconfig/-n, builds the probe's
// configuration and the client.
func (o *watchPodOptions) Complete(_ *cobra.Command, args []string) error {
	o.name = args[0]
	ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	o.namespace = ns
	if rc, err := o.configFlags.ToRESTConfig(); err == nil {
		o.probe.apiServer = rc.Host
	}
	return o.complete()
}

// Validate rejects flag combinations that cannot be done.
func (o *watchPodOptions) Validate() error {
	switch {
	case o.name == "":
		return errMissingArg("one pod", "watch pod NAME")
	case o.delete && o.evict:
		return errors.New("--delete and --evict are exclusive: choose one")
	case o.gracePeriod != -1 && !o.delete && !o.evict:
		return errors.New("--grace-period needs --delete or --evict")
	case o.gracePeriod == 0 || o.gracePeriod < -1:
		return fmt.Errorf("--grace-period %d is not allowed: use 1 or more seconds (0 is a force delete, with no termination to watch)", o.gracePeriod)
	}
	return o.validate("watch pod")
}

// Run follows the pod, then prints the chart and the verdict. It returns
// cliutil.Risk() when the verdict found a risk.
func (o *watchPodOptions) Run(ctx context.Context) error {
	note := stopNote{waiting: "the watches to close, then the timeline so far and the verdict", skipped: "the timeline and the verdict"}
	return followProbed(ctx, &o.watchFlags, note, o.delete || o.evict, func(ctx context.Context, pr *probing) (*timeline.Timeline, error) {
		lines := func(w io.Writer) timeline.Printer { return render.PodLinePrinter(w, o.wide) }
		cfg := timeline.Config{Client: o.client, Namespace: o.namespace, Name: o.name, Settle: o.settle,
			Printer: printer(o.sink, render.PodJSONPrinter, lines), IngressAPI: o.ingressAPI, ProbeURL: pr.url, Requests: pr.buckets}
		switch {
		case o.delete:
			cfg.Action = timeline.Delete
		case o.evict:
			cfg.Action = timeline.Evict
		}
		if o.gracePeriod > 0 {
			cfg.GracePeriodSeconds = &o.gracePeriod
		}
		return timeline.Follow(ctx, cfg)
	}, func(tl *timeline.Timeline) []probe.Result { return tl.Requests }, o.judge)
}

// judge prints the chart and the verdict of tl, or words why there is
// none.
func (o *watchPodOptions) judge(ctx context.Context, tl *timeline.Timeline, err error) error {
	if tl == nil {
		err = endedBeforeStart(ctx, err, "pod "+o.namespace+"/"+o.name)
		return sayNotFound(ctx, o.client, err, "pod", o.namespace)
	}
	if tl.T0.IsZero() {
		return o.noTermination(tl, err)
	}
	v := timeline.ComputeWith(tl, timeline.Options{Propagation: o.propagation})
	return watchOutcome(podWatchSummary.write(o.sink, tl, v), err, v.Risk)
}

// podWatchSummary is watch pod's end: a chart and the verdict.
var podWatchSummary = watchSummary[*timeline.Timeline, timeline.Verdict]{json: render.WriteJSONSummary,
	verdict: render.WriteVerdict, mermaid: render.WriteMermaid,
	text: []func(io.Writer, *timeline.Timeline, timeline.Verdict) error{render.WriteChart, render.WriteVerdict}}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// watchWorkloadOptions are the inputs of `kubectl graceful watch
// deployment/NAME` (also TYPE NAME, statefulsets and daemonsets).
type watchWorkloadOptions struct {
	watchFlags

	workload rollout.Workload
	// restart does what `kubectl rollout restart` does; scale (>= 0) sets
	// the replicas through the scale subresource; -1 means no scale.
	restart bool
	scale   int32
}

// newCmdWatchWorkload builds `kubectl graceful watch TYPE/NAME`, the parent
// of `watch pod`.
func newCmdWatchWorkload(o *watchWorkloadOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch (TYPE/NAME | TYPE NAME) [--restart | --scale N]",
		Short: "Watch a termination or a whole rollout and say whether it raced its endpoints",
		Long: `Follows every pod of a Deployment, StatefulSet or DaemonSet that terminates
while it runs (a rollout, a scale-down, a drain), each with the same facts and
verdict as 'watch pod', and the ready endpoints of every Service that selects
the workload against its desired replicas and its PodDisruptionBudget. It ends
when the rollout is complete (as 'kubectl rollout status' reads it) and no pod
is terminating, at --timeout, or on Ctrl-C, then prints a table, a chart and
the rollout's verdict. Without --restart or --scale it waits for someone
else's rollout. 'watch pod NAME' follows a single pod.

With --probe URL it sends GET requests to URL while it watches and judges
them with the rollout: how many failed, when and how (see 'watch pod --help'
and docs/probe.md).

Exit status: 0 safe, 2 a risk was seen (a race, a SIGKILL, ready endpoints
below the PodDisruptionBudget, a rollout that did not complete, a failed
--probe request), 1 an error (unknown workload, a kind without a rollout, no
pods, RBAC).`,
		Example: `  kubectl graceful watch deployment/web -n shop --restart
  kubectl graceful watch statefulset db --timeout 15m
  kubectl graceful watch deploy/web --scale 2 -o json
  kubectl graceful watch pod web-7d4b9c --delete`,
		Args:              argsWithin(1, 2, "one workload", "watch TYPE/NAME (or TYPE NAME, or watch pod NAME)"),
		ValidArgsFunction: completeWorkloads(o.configFlags, false),
		RunE:              runE(o),
	}
	f := cmd.Flags()
	f.BoolVar(&o.restart, "restart", false, "Restart the workload as 'kubectl rollout restart' does, then watch the rollout")
	f.Int32Var(&o.scale, "scale", -1, "Scale the workload to N replicas (scale subresource), then watch")
	o.add(cmd, watchFlagHelp{settleAfter: "after the rollout completed", timeout: 10 * time.Minute,
		timeoutHelp: "Give up after this long and summarise what was seen (exit 2: not complete); 0 means no limit", wideAdds: " (the server's time)", probe: true})
	return cmd
}

// Complete resolves the workload's kind as kubectl does (short names,
// TYPE/NAME or TYPE NAME), builds the probe's configuration and the client.
func (o *watchWorkloadOptions) Complete(_ *cobra.Command, args []string) error {
	typ, name, err := splitWorkloadArgs(args)
	if err != nil {
		return err
	}
	ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	gvk, err := kindFor(o.configFlags, typ)
	switch {
	case errors.As(err, new(*url.Error)):
		return err // discovery failed (no answer, no credentials): not the type's fault
	case meta.IsNoMatchError(err):
		return fmt.Errorf("the server doesn't have a resource type %q", typ) // kubectl's words
	case err != nil:
		return fmt.Errorf("unknown resource type %q: %w", typ, err)
	}
	if sub, ok := watchSubcommand[gvk.GroupKind()]; ok {
		return fmt.Errorf("to follow %s use: kubectl graceful watch %s %s", sub.what, sub.name, name)
	}
	if gvk.Group != "apps" {
		gvk.Kind = gvk.GroupKind().String()
	}
	o.workload = rollout.Workload{Kind: gvk.Kind, Namespace: ns, Name: name}
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	o.probe.apiServer = cfg.Host
	return o.complete()
}

// watchSubcommand is the watch subcommand of each kind that has one
// instead of a rollout, for a TYPE/NAME that names it.
var watchSubcommand = map[schema.GroupKind]struct{ what, name string }{
	{Kind: "Pod"}:  {what: "one pod", name: "pod"},
	{Kind: "Node"}: {what: "a node's drain", name: "node"},
}

// kindFor resolves typ (a kind, a resource, RESOURCE.GROUP,
// RESOURCE.VERSION.GROUP or a short name, as kubectl reads them) through
// the API server's discovery. Discovery is asked once on its own first:
// the REST mapper's short-name expander drops a failed discovery and the
// mapper then asks again, which would run a failing credential plugin, and
// print its message, twice. Once it answered, the mapper reads the same
// discovery client's cache.
func kindFor(flags *genericclioptions.ConfigFlags, typ string) (schema.GroupVersionKind, error) {
	dc, err := flags.ToDiscoveryClient()
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	// Some groups failing (an aggregated API down) still leaves the rest.
	if _, _, err := dc.ServerGroupsAndResources(); err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return schema.GroupVersionKind{}, err
	}
	mapper, err := flags.ToRESTMapper()
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	// As kubectl's resource builder: a.b.c is first RESOURCE.VERSION.GROUP
	// (deployment.v1.apps), then RESOURCE.GROUP (widgets.example.com).
	gvr, gr := schema.ParseResourceArg(typ)
	if gvr != nil {
		if gvk, err := mapper.KindFor(*gvr); err == nil {
			return gvk, nil
		}
	}
	return mapper.KindFor(gr.WithVersion(""))
}

// splitWorkloadArgs reads TYPE/NAME or TYPE NAME.
func splitWorkloadArgs(args []string) (string, string, error) {
	if len(args) == 2 {
		if strings.Contains(args[0], "/") {
			return "", "", fmt.Errorf("%q is already TYPE/NAME: name one workload, as TYPE/NAME or TYPE NAME", args[0])
		}
		return args[0], args[1], nil
	}
	typ, name, ok := strings.Cut(args[0], "/")
	if !ok || typ == "" || name == "" {
		return "", "", fmt.Errorf("%q is not TYPE/NAME: use kubectl graceful watch deployment/NAME (or TYPE NAME, or watch pod NAME)", args[0])
	}
	return typ, name, nil
}

// Validate rejects what cannot be done, before anything is sent.
func (o *watchWorkloadOptions) Validate() error {
	switch {
	case o.workload.Name == "":
		return errMissingArg("one workload", "watch TYPE/NAME (or TYPE NAME, or watch pod NAME)")
	case o.restart && o.scale >= 0:
		return errors.New("--restart and --scale are exclusive: choose one")
	case o.scale < -1:
		return fmt.Errorf("--scale %d is not allowed: use 0 or more replicas", o.scale)
	}
	if err := rollout.CheckKind(o.workload.Kind); err != nil {
		return err
	}
	return o.validate("watch")
}

// Run follows the workload, then prints the summary. It returns
// cliutil.Risk() when the rollout verdict found a risk.
func (o *watchWorkloadOptions) Run(ctx context.Context) error {
	note := stopNote{waiting: "the watches to close, then the rollout so far and its verdict", skipped: "the summary and the verdict"}
	return followProbed(ctx, &o.watchFlags, note, o.restart || o.scale >= 0, func(ctx context.Context, pr *probing) (*rollout.Rollout, error) {
		lines := func(w io.Writer) rollout.Printer { return render.RolloutLinePrinter(w, o.wide) }
		cfg := rollout.Config{Client: o.client, Workload: o.workload, Settle: o.settle,
			Printer: printer(o.sink, render.RolloutJSONPrinter, lines), IngressAPI: o.ingressAPI, ProbeURL: pr.url, Requests: pr.buckets}
		switch {
		case o.restart:
			cfg.Action = rollout.Restart
		case o.scale >= 0:
			cfg.Action, cfg.Replicas = rollout.Scale, o.scale
		}
		return rollout.Follow(ctx, cfg)
	}, func(r *rollout.Rollout) []probe.Result { return r.Requests }, o.judge)
}

// judge prints the rollout's summary and verdict, or words why there is
// none.
func (o *watchWorkloadOptions) judge(ctx context.Context, r *rollout.Rollout, err error) error {
	if r == nil {
		err = endedBeforeStart(ctx, err, o.workload.String()+" in namespace "+o.workload.Namespace)
		return sayNotFound(ctx, o.client, err, strings.ToLower(o.workload.Kind), o.workload.Namespace)
	}
	v := rollout.ComputeWith(r, timeline.Options{Propagation: o.propagation})
	return watchOutcome(rolloutWatchSummary(o.sink.width).write(o.sink, r, v), err, v.Risk)
}

// rolloutWatchSummary is watch TYPE/NAME's end: a table, a chart and the
// verdict.
func rolloutWatchSummary(width int) watchSummary[*rollout.Rollout, rollout.Verdict] {
	return watchSummary[*rollout.Rollout, rollout.Verdict]{json: render.WriteWorkloadJSONSummary,
		verdict: render.WriteRolloutVerdict, mermaid: render.WriteRolloutMermaid,
		text: []func(io.Writer, *rollout.Rollout, rollout.Verdict) error{
			func(w io.Writer, _ *rollout.Rollout, v rollout.Verdict) error {
				return render.WriteRolloutTable(w, v, width)
			},
			render.WriteRolloutChart, render.WriteRolloutVerdict}}
}

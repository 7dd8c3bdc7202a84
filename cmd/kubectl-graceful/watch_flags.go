package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

// watchFlags are what the pod, rollout and node watches share: how long
// they listen, where their output goes, the propagation their verdicts
// are judged by, and the client.
type watchFlags struct {
	configFlags *genericclioptions.ConfigFlags
	// interrupt is told what the watch waits for once stopped (Ctrl-C).
	interrupt *interrupt

	// settle is how long to keep listening once what is followed is done,
	// for late Events and EndpointSlice updates.
	settle time.Duration
	// timeout bounds the whole command; 0 means no limit.
	timeout time.Duration
	// output is "" (lines, chart, verdict), "json", "yaml" or "mermaid".
	output string
	// wide is --wide: live lines with the server's time and whole messages.
	wide bool
	// propagation is how long kube-proxy, Ingress controllers and load
	// balancers are given to stop sending traffic, counted from the delete
	// request: a pod told to stop sooner is a risk.
	propagation time.Duration
	// ingressAPI is --ingress-api, the Traefik API to read.
	ingressAPI string
	// probe holds the --probe* flags, of the pod and rollout watches.
	probe probeFlags
	// sink is where -o sends the output.
	sink watchSink

	client kubernetes.Interface
	genericiooptions.IOStreams
}

// watchFlagHelp is what a watch's flags say of it: after what --settle
// keeps listening, --timeout's default and words, what --wide adds, and
// whether it takes --probe.
type watchFlagHelp struct {
	settleAfter string
	timeout     time.Duration
	timeoutHelp string
	wideAdds    string
	probe       bool
}

// add binds --settle, --timeout, -o (and its completion), --wide,
// --propagation, --ingress-api and the --probe* flags.
func (w *watchFlags) add(cmd *cobra.Command, h watchFlagHelp) {
	f := cmd.Flags()
	f.DurationVar(&w.settle, "settle", 3*time.Second, "How long to keep listening "+h.settleAfter+", for late Events and EndpointSlice updates")
	f.DurationVar(&w.timeout, "timeout", h.timeout, h.timeoutHelp)
	f.StringVarP(&w.output, "output", "o", "", "Output format: json (one object per line, then a summary), yaml (the same, one document each) or mermaid (gantt chart on stdout, lines on stderr)")
	registerCompletions(cmd, map[string]cobra.CompletionFunc{"output": completeValues(watchFormats...)})
	addWideFlag(f, &w.wide, h.wideAdds)
	addPropagationFlag(f, &w.propagation)
	addIngressAPIFlag(f, &w.ingressAPI)
	if h.probe {
		w.probe.add(f)
	}
}

// complete builds the probe's configuration, the sink and the client.
func (w *watchFlags) complete() error {
	w.probe.complete()
	w.sink = newWatchSink(w.output, w.IOStreams)
	var err error
	w.client, err = newClient(w.configFlags, clientLimits{})
	return err
}

// validate rejects negative durations, an unknown -o for command, a
// --propagation out of range, an --ingress-api that is not a URL and bad
// --probe* flags.
func (w *watchFlags) validate(command string) error {
	if w.settle < 0 || w.timeout < 0 {
		return errors.New("--settle and --timeout must not be negative")
	}
	if err := validateOutput(command, w.output, watchFormats...); err != nil {
		return err
	}
	if err := validatePropagation(w.propagation); err != nil {
		return err
	}
	if err := validateIngressAPI(w.ingressAPI); err != nil {
		return err
	}
	return w.probe.validate(command)
}

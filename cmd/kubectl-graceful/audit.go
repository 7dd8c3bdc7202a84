package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/load"
	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/report"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// auditOptions runs `kubectl graceful audit`: the checks of pkg/inspect over
// a live cluster (default) or over manifests (-f/-k, no cluster needed).
type auditOptions struct {
	configFlags *genericclioptions.ConfigFlags
	// interrupt is told what the audit waits for once stopped (Ctrl-C).
	interrupt *interrupt

	// filenames, recursive and kustomize select manifest mode (-f, -R, -k).
	filenames []string
	recursive bool
	kustomize string
	// maxInputSize bounds what is read of each -f input ("256Mi").
	maxInputSize string
	// afterLoad, when set, runs once the manifests are read: the tests
	// change a file there, as another process could.
	afterLoad func()
	// selector (-l) and allNamespaces (-A) narrow live mode.
	selector      string
	allNamespaces bool
	// resources are resource arguments (deployment/checkout) in live mode.
	resources []string
	// fleet audits several clusters (--contexts, --all-contexts).
	fleet fleetOptions

	// configFile (--config) is a YAML file of defaults for the flags below
	// (see auditConfig); flags given on the command line win.
	configFile  string
	output      string
	failOnFlag  string
	skip        []string
	colorFlag   string
	kubeVersion string

	// shutdownSeconds (seconds; -1 means not set), preStopFloor and
	// maxGrace (seconds) tune the checks.
	shutdownSeconds int64
	preStopFloor    int64
	maxGrace        int64
	// drainerCap is --drainer-cap: a drainer's limit on a pod's
	// termination to compare each workload's shutdown with; 0 for none.
	drainerCap time.Duration

	fix fixOptions
	// explainFlag is the removed --explain ID, kept hidden so that its
	// users are told the one spelling, `audit explain ID`.
	explainFlag string

	failOn    inspect.Severity
	namespace string
	version   inspect.Version
	color     bool

	genericiooptions.IOStreams
}

// newCmdAudit builds `kubectl graceful audit` and `audit explain ID`
// around o, binding every flag to it.
func newCmdAudit(o *auditOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit [TYPE/NAME ...] [-f FILE|DIR|-] [-k DIR]",
		Short: "Check workloads' termination settings, live or from manifests",
		Long: `Check how workloads' pods terminate: preStop against the grace period, endpoint
removal races, probes, PodDisruptionBudgets, rollout strategies and load balancer
draining. Live by default (-n, -A, -l, TYPE/NAME); from manifests with -f or -k,
with no cluster and no kubeconfig needed.

Exit status: 0 clean, 2 findings at or above --fail-on, 1 errors.
Explain a check: kubectl graceful audit explain ID`,
		Example: `  kubectl graceful audit -A
  kubectl graceful audit deployment/checkout -n shop
  kubectl graceful audit -f k8s/ -R -o sarif > audit.sarif
  kubectl graceful audit -k overlays/prod --kube-version 1.29 --fail-on warning`,
		ValidArgsFunction: completeWorkloads(o.configFlags, true),
		RunE:              runE(o),
	}
	f := cmd.Flags()
	f.StringSliceVarP(&o.filenames, "filename", "f", nil, "Manifest files or directories to audit, or - for stdin (no cluster needed)")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "Walk -f directories recursively")
	f.StringVar(&o.maxInputSize, "max-input-size", "256Mi", "Read at most this much of each -f input (file or stdin), a quantity such as 256Mi; a larger input is reported as not read")
	f.StringVarP(&o.kustomize, "kustomize", "k", "", "Kustomization directory to build and audit (no cluster needed)")
	f.StringVarP(&o.selector, "selector", "l", "", "Label selector narrowing the workloads audited (live)")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "Audit every namespace (live)")
	f.StringVarP(&o.output, "output", "o", "table", "Output format: "+strings.Join(report.Formats, ", "))
	f.StringVar(&o.failOnFlag, "fail-on", "error", "Exit 2 when a finding is at or above: error, warning, info, none")
	f.StringSliceVar(&o.skip, "skip", nil, "Check IDs not to run (comma-separated)")
	f.StringVar(&o.colorFlag, "color", "auto", "Colour severities: auto (on a terminal, unless NO_COLOR is set), always, never")
	f.StringVar(&o.kubeVersion, "kube-version", "", "Target Kubernetes version for manifests (e.g. 1.29; default: current)")
	f.StringVar(&o.explainFlag, "explain", "", "Removed: use kubectl graceful audit explain ID")
	_ = f.MarkHidden("explain")
	f.StringVar(&o.configFile, "config", "", "YAML file with defaults: skip, failOn, shutdownSeconds, prestopFloor, maxGrace, kubeVersion")
	f.DurationVar(&o.drainerCap, "drainer-cap", 0, "A drainer's limit on a pod's termination (cluster-autoscaler's --max-graceful-termination-sec, a Karpenter NodePool's terminationGracePeriod, 2m for spot): warn where preStop + app shutdown + load balancer deregistration is longer (live, the caps the cluster shows are read too)")
	f.Int64Var(&o.shutdownSeconds, "shutdown-seconds", -1, "The app's shutdown time after SIGTERM, in seconds, where no "+inspect.ShutdownSecondsAnnotation+" annotation says")
	f.Int64Var(&o.preStopFloor, "prestop-floor", 5, "Shortest preStop delay, in seconds, for pods behind a Service")
	f.Int64Var(&o.maxGrace, "max-grace", 300, "Grace period, in seconds, above which grace-period-long warns")
	o.fleet.addFlags(f)
	o.fix.addFlags(f)
	registerCompletions(cmd, map[string]cobra.CompletionFunc{
		"output":   completeValues(report.Formats...),
		"fail-on":  completeValues(failOnValues...),
		"color":    completeValues(colorValues...),
		"skip":     completeCheckIDs,
		"fix-only": completeCheckIDs,
		"contexts": completeContexts(o.configFlags),
		"kustomize": func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
	})
	cmd.AddCommand(newCmdAuditExplain())
	return cmd
}

// Complete reads the --config file and the namespace from the kubeconfig
// flags, resolves colour, the target version, --fail-on and the fleet's
// contexts, and tees stdin for --fix -f -. Validate changes nothing.
func (o *auditOptions) Complete(cmd *cobra.Command, args []string) error {
	o.resources = args
	if o.configFile != "" {
		if err := o.applyConfig(cmd); err != nil {
			return err
		}
	}
	if o.configFlags.Namespace != nil {
		o.namespace = *o.configFlags.Namespace
	}
	// A fleet audit takes each context's own namespace (auditContext).
	if !o.fleet.enabled() && o.explainFlag == "" && o.namespace == "" {
		ns, err := o.defaultNamespace()
		if err != nil {
			return err
		}
		o.namespace = ns
	}
	if o.kubeVersion != "" {
		v, err := inspect.ParseVersion(o.kubeVersion)
		if err != nil {
			return fmt.Errorf("--kube-version: %v", err)
		}
		o.version = v
	}
	o.color = o.useColor()
	// A bad value is Validate's to name; only a good one is kept.
	if sev, err := parseFailOn(o.failOnFlag); err == nil {
		o.failOn = sev
	}
	o.completeFix()
	return o.completeFleet()
}

func (o *auditOptions) manifestMode() bool {
	return len(o.filenames) > 0 || o.kustomize != ""
}

// useColor applies --color: always, never, or auto (stdout is a terminal
// and NO_COLOR is unset, https://no-color.org).
func (o *auditOptions) useColor() bool {
	switch o.colorFlag {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	tty, _ := terminal(o.Out)
	return tty
}

// Validate checks flag values and their combinations; it sets nothing
// and reads nothing.
func (o *auditOptions) Validate() error {
	if o.explainFlag != "" {
		return fmt.Errorf("audit --explain was removed: use kubectl graceful audit explain %s", o.explainFlag)
	}
	if _, err := parseFailOn(o.failOnFlag); err != nil {
		return err
	}
	if err := validateIDs(o.skip); err != nil {
		return fmt.Errorf("--skip: %v", err)
	}
	switch {
	case o.drainerCap < 0:
		return fmt.Errorf("--drainer-cap must not be negative, not %s", o.drainerCap)
	case !slices.Contains(colorValues, o.colorFlag):
		return errNotOneOf("--color", o.colorFlag, colorValues...)
	}
	if err := firstNamedTwice("workload", o.resources); err != nil {
		return err
	}
	if err := validateOutput("audit", o.output, report.Formats...); err != nil {
		return err
	}
	switch {
	case o.manifestMode() && len(o.resources) > 0:
		return fmt.Errorf("resource arguments (%s) select live objects: use them without -f/-k", strings.Join(o.resources, " "))
	case len(o.filenames) > 0 && o.kustomize != "":
		return fmt.Errorf("use either -f or -k, not both")
	case o.manifestMode() && (o.allNamespaces || o.selector != ""):
		return fmt.Errorf("-A and -l apply to live audits, not to -f/-k manifests")
	case o.preStopFloor < 0 || o.maxGrace < 0:
		return fmt.Errorf("--prestop-floor and --max-grace must not be negative")
	}
	if err := o.validateFleet(); err != nil {
		return err
	}
	if _, err := o.maxInputBytes(); err != nil {
		return err
	}
	return o.validateFix()
}

// Run loads the inventory, audits it and prints the report. It returns
// cliutil.Risk() when a finding is at or above --fail-on.
func (o *auditOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	o.interrupt.onStop(func() stopNote {
		return stopNote{waiting: "the reads in flight", skipped: "waiting"}
	})
	if o.fleet.enabled() {
		return o.runFleet(ctx)
	}
	inv := &inspect.Inventory{Version: o.version}
	var unread *load.UnreadError
	if o.manifestMode() {
		max, err := o.maxInputBytes()
		if err != nil {
			return err
		}
		err = load.Manifests(load.ManifestOptions{Filenames: o.filenames, Recursive: o.recursive,
			Kustomize: o.kustomize, Namespace: o.namespace, Stdin: o.In, MaxInputBytes: max, Read: o.fix.remember,
			Skipped: func(line string) { fmt.Fprintln(o.ErrOut, termsafe.Escape(line)) }}, inv)
		// Inputs that could not be read do not hide the findings of
		// those that could: they are reported, then each unread one.
		if err != nil && (!errors.As(err, &unread) || inv.Objects == 0) {
			return err
		}
		if o.afterLoad != nil {
			o.afterLoad()
		}
	} else {
		err := load.Live(ctx, o.configFlags, load.LiveOptions{Namespace: o.namespace, AllNamespaces: o.allNamespaces,
			Selector: o.selector, Resources: o.resources, Context: contextName(o.configFlags)}, inv)
		// Asked once the cluster answered: an unreachable one, or a
		// failing credential plugin, is reported once, by load.Live.
		c, cerr := newClient(o.configFlags, clientLimits{})
		if cerr != nil {
			c = nil
		}
		if err != nil && !o.allNamespaces {
			return sayNotFound(ctx, c, err, "", o.namespace)
		} else if err != nil {
			return err
		}
		if err := o.namespaceExists(ctx, c); err != nil {
			return err
		}
	}
	opts := o.checkOptions()
	r := inspect.Audit(inv, opts)
	if done, err := o.fixHook(inv, r, opts); done {
		if unread != nil {
			if uerr := o.reportUnread(unread); cliutil.CodeOf(err) != cliutil.ExitError {
				return uerr
			}
		}
		return err
	}
	_, width := terminal(o.Out) // the table's MESSAGE column wraps to it
	if err := report.Write(o.Out, r, o.output, o.color, width); err != nil {
		return err
	}
	switch {
	case unread != nil:
		return o.reportUnread(unread)
	case r.AtOrAbove(o.failOn):
		return cliutil.Risk()
	}
	return nil
}

// reportUnread names each input that could not be read, one line each, and
// returns exit status 1: the audit did not read all it was given.
func (o *auditOptions) reportUnread(e *load.UnreadError) error {
	for _, f := range e.Files {
		fmt.Fprintln(o.ErrOut, "error: not read: "+termsafe.Escape(cliutil.OneLine(f.Message())))
	}
	return &cliutil.ExitCodeError{Code: cliutil.ExitError}
}

// maxInputBytes parses --max-input-size ("" is the default, 256Mi).
func (o *auditOptions) maxInputBytes() (int64, error) {
	if o.maxInputSize == "" {
		return load.DefaultMaxInputBytes, nil
	}
	q, err := resource.ParseQuantity(o.maxInputSize)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("--max-input-size %q is not a positive quantity such as 256Mi", o.maxInputSize)
	}
	return q.Value(), nil
}

// checkOptions are the checks' settings from the flags.
func (o *auditOptions) checkOptions() inspect.Options {
	opts := inspect.DefaultOptions()
	opts.Skip = o.skip
	opts.PreStopFloorSeconds = o.preStopFloor
	opts.MaxGraceSeconds = o.maxGrace
	if o.shutdownSeconds >= 0 {
		opts.ShutdownSeconds = &o.shutdownSeconds
	}
	if o.drainerCap > 0 {
		opts.DrainerCaps = []inspect.DrainerCap{{Seconds: int64(o.drainerCap / time.Second), Name: "--drainer-cap"}}
	}
	return opts
}

// auditConfig is the --config file: team-wide defaults kept in the
// repository next to the manifests, e.g.
//
//	skip: [min-ready-seconds-zero]
//	failOn: warning
//	shutdownSeconds: 20
type auditConfig struct {
	Skip            []string `json:"skip"`
	FailOn          string   `json:"failOn"`
	ShutdownSeconds *int64   `json:"shutdownSeconds"`
	PreStopFloor    *int64   `json:"prestopFloor"`
	MaxGrace        *int64   `json:"maxGrace"`
	KubeVersion     string   `json:"kubeVersion"`
}

// applyConfig reads configFile (strictly: an unknown key is an error) and
// sets every option whose flag was not given on the command line.
func (o *auditOptions) applyConfig(cmd *cobra.Command) error {
	data, err := os.ReadFile(o.configFile)
	if err != nil {
		return fmt.Errorf("--config: %v", err)
	}
	var c auditConfig
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return fmt.Errorf("--config %s: %v", o.configFile, err)
	}
	apply := func(flag string, inFile bool, set func()) {
		if inFile && !cmd.Flags().Changed(flag) {
			set()
		}
	}
	apply("skip", c.Skip != nil, func() { o.skip = c.Skip })
	apply("fail-on", c.FailOn != "", func() { o.failOnFlag = c.FailOn })
	apply("shutdown-seconds", c.ShutdownSeconds != nil, func() { o.shutdownSeconds = *c.ShutdownSeconds })
	apply("prestop-floor", c.PreStopFloor != nil, func() { o.preStopFloor = *c.PreStopFloor })
	apply("max-grace", c.MaxGrace != nil, func() { o.maxGrace = *c.MaxGrace })
	apply("kube-version", c.KubeVersion != "", func() { o.kubeVersion = c.KubeVersion })
	return nil
}

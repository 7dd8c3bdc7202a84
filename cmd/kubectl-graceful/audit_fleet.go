package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/load"
	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/report"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// fleetOptions are the flags of a fleet audit: several clusters, each
// reached through its kubeconfig context, audited concurrently into one
// report. kubectl's --context stays the single-cluster flag.
type fleetOptions struct {
	contextsFlag []string
	allContexts  bool
	// parallel is how many clusters are audited at once.
	parallel int

	// contexts are the resolved context names, in report order.
	contexts []string
}

func (f *fleetOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.contextsFlag, "contexts", nil, "Audit the clusters of these kubeconfig contexts (comma-separated) into one report with a CLUSTER column")
	fs.BoolVar(&f.allContexts, "all-contexts", false, "Audit the cluster of every kubeconfig context into one report")
	fs.IntVar(&f.parallel, "parallel", 4, "With --contexts or --all-contexts: clusters audited at once")
}

func (f *fleetOptions) enabled() bool { return len(f.contextsFlag) > 0 || f.allContexts }

// validateFleet checks the fleet flags against the others. It reads
// nothing: completeFleet resolves the names.
func (o *auditOptions) validateFleet() error {
	f := &o.fleet
	if !f.enabled() {
		return nil
	}
	switch {
	case len(f.contextsFlag) > 0 && f.allContexts:
		return fmt.Errorf("use either --contexts or --all-contexts, not both")
	case o.manifestMode():
		return fmt.Errorf("--contexts and --all-contexts audit live clusters: not with -f/-k manifests")
	case set(o.configFlags.Context) || set(o.configFlags.ClusterName) || set(o.configFlags.AuthInfoName) || set(o.configFlags.APIServer):
		return fmt.Errorf("--context, --cluster, --user and --server pick one cluster: use --contexts/--all-contexts without them")
	case f.parallel < 1:
		return fmt.Errorf("--parallel must be at least 1")
	}
	return nil
}

// completeFleet resolves the context names from the kubeconfig: an unknown
// name, one named twice, or a kubeconfig with no context, is an error. With fleet flags
// that conflict it reads nothing, so that Validate names the conflict
// rather than a kubeconfig the audit would not use.
func (o *auditOptions) completeFleet() error {
	f := &o.fleet
	if !f.enabled() || o.validateFleet() != nil {
		return nil
	}
	raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %v", err)
	}
	known := slices.Sorted(maps.Keys(raw.Contexts))
	if len(known) == 0 {
		return fmt.Errorf("the kubeconfig has no contexts: nothing to audit with --contexts/--all-contexts")
	}
	if f.allContexts {
		f.contexts = known
		return nil
	}
	if err := firstNamedTwice("context", f.contextsFlag); err != nil {
		return err
	}
	for _, name := range f.contextsFlag {
		if _, ok := raw.Contexts[name]; !ok {
			return fmt.Errorf("--contexts: no context %q in the kubeconfig%s (it has: %s)", name, didYouMean(name, known), strings.Join(known, ", "))
		}
		f.contexts = append(f.contexts, name)
	}
	return nil
}

func set(flag *string) bool { return flag != nil && *flag != "" }

// runFleet audits every resolved context, at most --parallel at once, and
// prints one report. A cluster that could not be audited gets one line on
// stderr, after the report; the others are still reported. The exit status
// is 1 when no cluster could be audited, otherwise the findings decide.
func (o *auditOptions) runFleet(ctx context.Context) error {
	results := make([]report.ClusterReport, len(o.fleet.contexts))
	sem := make(chan struct{}, o.fleet.parallel)
	var wg sync.WaitGroup
	for i, name := range o.fleet.contexts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := o.auditContext(ctx, name)
			results[i] = report.ClusterReport{Cluster: name, Report: r, Err: err}
		}()
	}
	wg.Wait()
	fleet := report.NewFleet(results)
	if fleet.Audited() > 0 {
		_, width := terminal(o.Out) // the table's MESSAGE column wraps to it
		if err := report.WriteFleet(o.Out, fleet, o.output, o.color, width); err != nil {
			return err
		}
	}
	for _, c := range fleet.Clusters {
		if c.Error != "" {
			fmt.Fprintf(o.ErrOut, "error: context %s not audited: %s\n", termsafe.Escape(fmt.Sprintf("%q", c.Cluster)), termsafe.Escape(c.Error))
		}
	}
	switch {
	case fleet.Audited() == 0:
		return &cliutil.ExitCodeError{Code: cliutil.ExitError}
	case fleet.AtOrAbove(o.failOn):
		return cliutil.Risk()
	}
	return nil
}

// Without --request-timeout, a fleet audit bounds each cluster's requests:
// one cluster that drops packets or never answers must not hold the
// report of the others. fleetReachTimeout bounds the first request (the
// server's version; connection and TLS handshake included): an API server
// answers it in milliseconds, and 10 s leaves room for a few lost SYNs.
// fleetRequestTimeout bounds each later request (a page of a list), as
// --request-timeout would.
const (
	fleetReachTimeout   = 10 * time.Second
	fleetRequestTimeout = time.Minute
)

// auditContext audits the cluster of one kubeconfig context, in the
// namespace -n gives or else the context's own.
func (o *auditOptions) auditContext(ctx context.Context, name string) (*inspect.Report, error) {
	getter := contextClient(o.configFlags, name)
	ns := ptr.Deref(o.configFlags.Namespace, "")
	if ns == "" {
		var err error
		if ns, _, err = getter.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil, fmt.Errorf("kubeconfig: %v", err)
		}
	}
	inv := &inspect.Inventory{Version: o.version}
	var reach time.Duration
	if t := o.configFlags.Timeout; t == nil || *t == "" || *t == "0" { // no --request-timeout (its default "0" means none)
		reach = fleetReachTimeout
	}
	err := load.Live(ctx, getter, load.LiveOptions{Namespace: ns, AllNamespaces: o.allNamespaces,
		Selector: o.selector, Resources: o.resources, ReachTimeout: reach, Context: contextName(getter)}, inv)
	if err != nil {
		return nil, err
	}
	return inspect.Audit(inv, o.checkOptions()), nil
}

// contextClient returns the kubectl flags of base (kubeconfig, credentials,
// timeouts, impersonation) pointed at kubeconfig context name: the one
// place a fleet audit builds a client.
func contextClient(base *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.CacheDir, f.KubeConfig = base.CacheDir, base.KubeConfig
	f.Context = &name
	f.Namespace = base.Namespace
	f.TLSServerName, f.Insecure = base.TLSServerName, base.Insecure
	f.CertFile, f.KeyFile, f.CAFile, f.BearerToken = base.CertFile, base.KeyFile, base.CAFile, base.BearerToken
	f.Impersonate, f.ImpersonateUID, f.ImpersonateGroup, f.ImpersonateUserExtra = base.Impersonate, base.ImpersonateUID, base.ImpersonateGroup, base.ImpersonateUserExtra
	f.Username, f.Password = base.Username, base.Password
	f.Timeout, f.DisableCompression, f.ProxyURL = base.Timeout, base.DisableCompression, base.ProxyURL
	f.WrapConfigFn = func(c *rest.Config) *rest.Config {
		if base.WrapConfigFn != nil {
			c = base.WrapConfigFn(c)
		}
		c.Timeout = cmp.Or(c.Timeout, fleetRequestTimeout)
		return c
	}
	return f
}

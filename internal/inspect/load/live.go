package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// LiveOptions says which part of a cluster to audit.
type LiveOptions struct {
	// Namespace to audit; ignored with AllNamespaces.
	Namespace     string
	AllNamespaces bool
	// Selector is a label selector (-l) narrowing the workloads audited;
	// Services, PDBs, HPAs and Ingresses are always read whole so that
	// workloads are matched against all of them.
	Selector string
	// Resources are kubectl-style resource arguments ("deployment/checkout",
	// "deploy web api") narrowing the workloads audited.
	Resources []string
	// PageSize is the list page size (default 500).
	PageSize int64
	// ReachTimeout bounds the first request (the server's version): a
	// cluster that does not answer it within this time is unreachable (an
	// address that drops packets would otherwise hold the audit for the
	// client's 30 s dial timeout, a server that accepts but never answers
	// for ever). 0 sets no bound beyond the client's own.
	ReachTimeout time.Duration
	// Context names the cluster in errors: the quoted kubeconfig context
	// or "(server URL)" the command's flags and kubeconfig select. "" means
	// there is neither a context nor a server: Live refuses.
	Context string
}

// Live reads the cluster behind getter into inv: the server version, the
// workloads (Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs,
// CronJobs and bare Pods) and the Services, PDBs, HPAs, Ingresses (with
// the cluster's IngressClasses) and pods the checks match them against.
// Lists are paged, so the number of requests grows with resource types and
// pages, not objects. A Service/PDB/HPA/Ingress/IngressClass/pod list the
// user may not read (RBAC) or the server does not serve
// is recorded in inv.Unavailable; failing to reach the cluster, or to read
// workloads, is an error naming the context and server. Whether the pods'
// controllers have a scale subresource is asked of API discovery, for the
// budgets that need it (inspect.Inventory.ScaleQuestions).
func Live(ctx context.Context, getter resource.RESTClientGetter, opts LiveOptions, inv *inspect.Inventory) error {
	where := opts.Context
	if where == "" {
		return fmt.Errorf("no cluster configured: no current context in the kubeconfig (set KUBECONFIG or --kubeconfig, or audit manifests with -f/-k)")
	}
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig context %s: %v", where, err)
	}
	cs, err := kubernetes.NewForConfig(protobuf(cfg))
	if err != nil {
		return fmt.Errorf("kubeconfig context %s: %v", where, err)
	}
	sv, err := serverVersion(ctx, cs, opts.ReachTimeout)
	if apierrors.IsUnauthorized(err) {
		return fmt.Errorf("the cluster of context %s (server %s) rejected its credentials (expired or revoked?): %v", where, cfg.Host, err)
	}
	var late noAnswerWithin
	switch {
	case err == nil:
	case cliutil.NoAnswer(err) || errors.As(err, &late):
		return cliutil.Unreachable(where, cfg.Host, err)
	default: // asked, or never sent (a credential plugin that failed)
		return fmt.Errorf("the cluster of context %s (server %s): %v", where, cfg.Host, err)
	}
	inv.Live = true
	if v, err := inspect.ParseVersion(sv.Major + "." + sv.Minor); err == nil {
		inv.Version = v
	}
	ns := opts.Namespace
	if opts.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	sel, err := labels.Parse(opts.Selector)
	if err != nil {
		return fmt.Errorf("-l %q: %v", opts.Selector, err)
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig context %s: %v", where, err)
	}
	l := newLister(ctx, cs, md, ns, opts, inv)
	l.everyDeployment = ns == metav1.NamespaceAll && opts.Selector == "" && len(opts.Resources) == 0
	if len(opts.Resources) > 0 {
		if err := l.resources(getter, opts); err != nil {
			return err
		}
		l.inputs(sel, false)
	} else if err := l.lists(opts.Selector, sel); err != nil {
		return fmt.Errorf("context %s: %v", where, err)
	}
	l.loadBalancerObjects(cfg)
	// The drainers' caps the cluster shows; what cannot be read gives none.
	l.inv.DrainerCaps = slices.Concat(l.inv.DrainerCaps, l.autoscalerCaps(), l.nodePoolCaps(cfg), l.spotCaps())
	scaleSubresources(getter, inv)
	return nil
}

// serverVersion reads the server's version, within timeout when it is not
// 0; a request that times out is an error saying how long it waited.
// noAnswerWithin is the server version's request given up after the
// reach timeout (a cluster that does not answer: the fleet audit's bound).
type noAnswerWithin time.Duration

func (d noAnswerWithin) Error() string { return fmt.Sprintf("no answer within %s", time.Duration(d)) }

func serverVersion(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) (*version.Info, error) {
	if timeout <= 0 {
		return discovery.ToServerVersionInterfaceWithContext(cs.Discovery()).ServerVersionWithContext(ctx)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sv, err := discovery.ToServerVersionInterfaceWithContext(cs.Discovery()).ServerVersionWithContext(tctx)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		return nil, noAnswerWithin(timeout)
	}
	return sv, err
}

func newLister(ctx context.Context, cs kubernetes.Interface, md metadata.Interface, ns string, opts LiveOptions, inv *inspect.Inventory) *lister {
	l := &lister{ctx: ctx, cs: cs, md: md, ns: ns, page: cmp.Or(opts.PageSize, 500), inv: inv, mu: &sync.Mutex{}}
	return l
}

// lists reads workloads and inputs with one paged list per resource type,
// in two streams at once: the workloads' lists in one, the inputs' in the
// other, so that each waits on the API server while the other's pages are
// decoded and filed (the lists of a remote cluster are mostly round
// trips). Bare pods, workloads too, are read after both, so that
// workloads are filed in the same order on every run. A failed workload
// list stops the inputs' stream too.
func (l *lister) lists(selector string, sel labels.Selector) error {
	ctx, cancel := context.WithCancel(l.ctx)
	defer cancel()
	w := l.with(ctx)
	var err error
	var wg sync.WaitGroup
	wg.Go(func() {
		if err = w.workloads(selector); err != nil {
			cancel()
		}
	})
	bare := l.with(ctx).inputs(sel, true)
	wg.Wait()
	if err != nil {
		return err
	}
	l.optional(inspect.InputPods, func() error { return l.barePods(sel, bare) })
	return nil
}

// with returns a copy of l whose requests run under ctx; it files into
// the same inventory under the same lock.
func (l *lister) with(ctx context.Context) *lister {
	c := *l
	c.ctx = ctx
	return &c
}

// loadBalancerObjects reads the load balancer and scaling custom resources
// (inspect.CustomResources) where the cluster serves them; where it
// does not (no GKE, no AWS Load Balancer Controller) nothing is reported,
// and a forbidden list marks its input unavailable.
func (l *lister) loadBalancerObjects(cfg *rest.Config) {
	var dc dynamic.Interface
	for resource, input := range inspect.CustomResources() {
		if _, err := l.cs.Discovery().ServerResourcesForGroupVersion(resource.GroupVersion().String()); err != nil {
			continue
		}
		if dc == nil {
			var err error
			if dc, err = dynamic.NewForConfig(cfg); err != nil {
				l.unavailable(input, err.Error())
				continue
			}
		}
		list, err := dc.Resource(resource).Namespace(l.ns).List(l.ctx, metav1.ListOptions{})
		if err != nil {
			l.unavailable(input, err.Error())
			continue
		}
		for i := range list.Items {
			l.inv.Add(&list.Items[i], nil)
		}
	}
}

type lister struct {
	ctx context.Context
	// mu serialises filing into inv: lists runs two streams at once.
	mu *sync.Mutex
	// cs reads built-in types in protobuf; md reads pods' metadata only.
	cs   kubernetes.Interface
	md   metadata.Interface
	ns   string
	page int64
	inv  *inspect.Inventory
	// everyDeployment is set when the workloads read hold every
	// Deployment of the cluster (all namespaces, no -l, no resources).
	everyDeployment bool
}

// listFunc is one typed List call (e.g. Deployments(ns).List).
type listFunc func(metav1.ListOptions) (runtime.Object, error)

// listOf is the typed List method list (Deployments(ns).List) as a
// listFunc under l's context.
func listOf[T runtime.Object](l *lister, list func(context.Context, metav1.ListOptions) (T, error)) listFunc {
	return func(o metav1.ListOptions) (runtime.Object, error) { return list(l.ctx, o) }
}

// pages pages through one list call and hands every item to file. Each
// page is filed while the next one is read (client-go's ListPager with a
// one-page buffer) and dropped after: memory holds two pages plus what
// file keeps, not whole lists.
func (l *lister) pages(selector string, list listFunc, file func(runtime.Object)) error {
	p := pager.New(pager.SimplePageFunc(list))
	p.PageSize, p.PageBufferSize = l.page, 1
	// A full unpaged list after an expired continue token would hold the
	// whole list at once; the audit fails instead, naming the error.
	p.FullListIfExpired = false
	return p.EachListItem(l.ctx, metav1.ListOptions{LabelSelector: selector}, func(item runtime.Object) error {
		trim(item)
		file(item)
		return nil
	})
}

// add files a listed object whole.
func (l *lister) add(obj runtime.Object) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inv.Add(obj, nil)
}

func (l *lister) workloads(selector string) error {
	apps, batch := l.cs.AppsV1(), l.cs.BatchV1()
	for _, list := range []listFunc{
		listOf(l, apps.Deployments(l.ns).List),
		listOf(l, apps.StatefulSets(l.ns).List),
		listOf(l, apps.DaemonSets(l.ns).List),
		listOf(l, apps.ReplicaSets(l.ns).List),
		listOf(l, batch.Jobs(l.ns).List),
		listOf(l, batch.CronJobs(l.ns).List),
	} {
		if err := l.pages(selector, list, l.add); err != nil {
			return err
		}
	}
	return nil
}

// inputs lists what workloads are matched against. Of pods only the
// labels are kept (PDBs are matched against every pod); when withBarePods
// it returns the namespaces holding bare pods (no controller) that match
// sel, for barePods to read as workloads.
func (l *lister) inputs(sel labels.Selector, withBarePods bool) (bare map[string]bool) {
	l.optional(inspect.InputServices, l.all(listOf(l, l.cs.CoreV1().Services(l.ns).List)))
	l.optional(inspect.InputPDBs, l.all(listOf(l, l.cs.PolicyV1().PodDisruptionBudgets(l.ns).List)))
	l.optional(inspect.InputHPAs, l.all(listOf(l, l.cs.AutoscalingV2().HorizontalPodAutoscalers(l.ns).List)))
	l.optional(inspect.InputIngresses, l.all(listOf(l, l.cs.NetworkingV1().Ingresses(l.ns).List)))
	// IngressClasses are cluster-scoped and only name each Ingress's
	// controller: one the user may not read leaves it unknown (a note),
	// no check is skipped.
	if err := l.all(listOf(l, l.cs.NetworkingV1().IngressClasses().List))(); err != nil {
		l.inv.IngressClassesUnread = err.Error()
	}
	l.optional(inspect.InputPods, func() (err error) {
		bare, err = l.podLabels(sel, withBarePods)
		return err
	})
	return bare
}

// optional runs a list whose failure (forbidden, API not served) makes the
// checks needing input skip instead of failing the audit.
func (l *lister) optional(in inspect.Input, read func() error) {
	err := read()
	if err == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case apierrors.IsForbidden(err):
		l.unavailable(in, "forbidden by RBAC: "+err.Error())
	case apierrors.IsNotFound(err):
		l.unavailable(in, "the server does not serve this API")
	default:
		l.unavailable(in, err.Error())
	}
}

// all returns a read of every object of one list, filed whole.
func (l *lister) all(list listFunc) func() error {
	return func() error { return l.pages("", list, l.add) }
}

// resources reads the workloads named by kubectl-style arguments with the
// resource builder, then files them like listed ones.
func (l *lister) resources(getter resource.RESTClientGetter, opts LiveOptions) error {
	r := resource.NewBuilder(getter).Unstructured().
		NamespaceParam(opts.Namespace).DefaultNamespace().AllNamespaces(opts.AllNamespaces).
		LabelSelectorParam(opts.Selector).
		ResourceTypeOrNameArgs(true, opts.Resources...).
		Flatten().Latest().Do()
	return r.Visit(func(info *resource.Info, err error) error {
		if err != nil {
			return err
		}
		u, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("unexpected object %T", info.Object)
		}
		return addUnstructured(l.inv, u, nil)
	})
}

// unavailable records that input in could not be read, and why.
func (l *lister) unavailable(in inspect.Input, reason string) {
	if l.inv.Unavailable == nil {
		l.inv.Unavailable = map[inspect.Input]string{}
	}
	l.inv.Unavailable[in] = reason
}

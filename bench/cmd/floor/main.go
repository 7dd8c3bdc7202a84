// Command floor makes the live audit's LISTs and discards them: the same
// types, across all namespaces, with the same page size, built-in types in
// protobuf and pods as metadata only (PartialObjectMetadata, protobuf), as
// `kubectl graceful audit -A` reads them. It is the benchmark's floor for
// the live audit: what the API server sends for the audit's reads, decoded
// by client-go and thrown away, with no checks and no output. It is a
// process of its own, started as the plugin is (no shell), under the
// plugin's garbage collector policy (internal/gcpolicy); its start-up is
// client-go's alone (no cobra, no command tree).
//
// With -contexts it makes those LISTs against each named context of the
// kubeconfig at once (one goroutine per cluster, as `audit --contexts`
// with its default --parallel 4 for up to four): the fleet's floor.
//
//	floor -kubeconfig FILE [-page 500] [-context NAME | -contexts A,B,...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/pager"

	// The plugin's garbage collector policy: the floor runs under it too.
	_ "github.com/kubectl-graceful/kubectl-graceful/internal/gcpolicy"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	page := flag.Int64("page", 500, "list page size (the audit's)")
	current := flag.String("context", "", "kubeconfig context (default: the current one)")
	contexts := flag.String("contexts", "", "comma-separated kubeconfig contexts, listed at once")
	flag.Parse()
	if *contexts == "" {
		return discardLists(*kubeconfig, *current, *page)
	}
	names := strings.Split(*contexts, ",")
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { errs[i] = discardLists(*kubeconfig, n, *page) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("context %s: %w", names[i], err)
		}
	}
	return nil
}

// discardLists makes the audit's LISTs against the cluster of
// kubeContext ("" the current one) and discards them.
func discardLists(kubeconfig, kubeContext string, page int64) error {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: kubeContext}).ClientConfig()
	if err != nil {
		return err
	}
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	all := metav1.NamespaceAll
	apps, batch := cs.AppsV1(), cs.BatchV1()
	lists := []pager.ListPageFunc{
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return apps.Deployments(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return apps.StatefulSets(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return apps.DaemonSets(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return apps.ReplicaSets(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return batch.Jobs(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return batch.CronJobs(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) { return cs.CoreV1().Services(all).List(ctx, o) }),
		simple(func(o metav1.ListOptions) (runtime.Object, error) {
			return cs.PolicyV1().PodDisruptionBudgets(all).List(ctx, o)
		}),
		simple(func(o metav1.ListOptions) (runtime.Object, error) {
			return cs.AutoscalingV2().HorizontalPodAutoscalers(all).List(ctx, o)
		}),
		simple(func(o metav1.ListOptions) (runtime.Object, error) {
			return cs.NetworkingV1().Ingresses(all).List(ctx, o)
		}),
		simple(func(o metav1.ListOptions) (runtime.Object, error) {
			return md.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).List(ctx, o)
		}),
	}
	for _, list := range lists {
		p := pager.New(list)
		p.PageSize, p.PageBufferSize, p.FullListIfExpired = page, 1, false
		if err := p.EachListItem(ctx, metav1.ListOptions{}, func(runtime.Object) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

func simple(fn func(metav1.ListOptions) (runtime.Object, error)) pager.ListPageFunc {
	return pager.SimplePageFunc(fn)
}

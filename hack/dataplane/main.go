// Command dataplane runs the SIMULATED data plane of the local cluster
// (internal/dataplane) for one Service, until interrupted:
//
//	go run ./hack/dataplane -n graceful-demo -service naive [-propagation 1s]
//
// Its first line on stdout is the load balancer's URL, for
// `kubectl graceful watch pod ... --probe URL`; stderr says what it
// simulates. `make demo` uses it; the plugin never does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-graceful/kubectl-graceful/internal/dataplane"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run() error {
	ns := flag.String("n", "default", "namespace of the Service")
	svc := flag.String("service", "", "the Service whose EndpointSlices are followed")
	prop := flag.Duration("propagation", dataplane.DefaultPropagation, "how late routing follows the EndpointSlices")
	flag.Parse()
	if *svc == "" || *prop <= 0 {
		return fmt.Errorf("usage: dataplane -n NAMESPACE -service NAME [-propagation 1s]")
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := dataplane.Start(ctx, dataplane.Config{Client: client, Namespace: *ns, Service: *svc, Propagation: *prop})
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Println(d.URL)
	fmt.Fprintln(os.Stderr, d.Describe())
	<-ctx.Done()
	time.Sleep(10 * time.Millisecond)
	return nil
}

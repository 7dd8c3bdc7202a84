package main

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clientLimits are a client's rate limits: qps in requests per second,
// burst in requests; zero keeps client-go's defaults (5 and 10); and what
// wraps its transport, if anything.
type clientLimits struct {
	qps   float32
	burst int
	// wrap, when set, wraps the client's transport.
	wrap func(http.RoundTripper) http.RoundTripper
}

// drainClientLimits let a drain poll each evicted pod every second (the
// library does) and re-read refused pods before a retry without waiting on
// the client: with client-go's defaults a drain of more than a few pods
// waits on the client, not on the cluster. The API server's priority and
// fairness still applies: the transport hands each throttled read to the
// drain (throttlingSeen), which shows it and waits it out itself, as
// it does for evictions (eviction.Send).
var drainClientLimits = clientLimits{qps: 50, burst: 100, wrap: throttlingSeen}

// newClient builds the clientset of kubectl's flags (--kubeconfig,
// --context, --as, --request-timeout, ...) with limits. It does not call
// the API server; it fails on a kubeconfig that cannot be loaded.
func newClient(flags *genericclioptions.ConfigFlags, limits clientLimits) (kubernetes.Interface, error) {
	cfg, err := limitedConfig(flags, limits)
	if err != nil {
		return nil, err
	}
	// Protobuf for every request of the clientset, as kubectl asks: the
	// typed clients' own methods prefer it already, but the ListWatches
	// built on their RESTClient() (the watches of watch and drain --watch)
	// would otherwise read JSON, several times the bytes and the
	// allocations to decode. The clientset holds built-in types only,
	// which all have a protobuf encoding; JSON stays accepted.
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return kubernetes.NewForConfig(cfg)
}

// newDynamicClient builds a dynamic client of kubectl's flags with
// limits, for the custom resources a command reads (JSON: they have no
// protobuf encoding). It does not call the API server.
func newDynamicClient(flags *genericclioptions.ConfigFlags, limits clientLimits) (dynamic.Interface, error) {
	cfg, err := limitedConfig(flags, limits)
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(cfg)
}

// limitedConfig is the REST configuration of kubectl's flags with limits.
func limitedConfig(flags *genericclioptions.ConfigFlags, limits clientLimits) (*rest.Config, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	if limits.qps > 0 {
		cfg.QPS, cfg.Burst = limits.qps, limits.burst
	}
	if limits.wrap != nil {
		cfg.Wrap(limits.wrap)
	}
	return cfg, nil
}

// contextName names the cluster the flags select, for load.LiveOptions'
// Context: the quoted --context, "(server URL)" for --server, else the
// kubeconfig's quoted current context; "" when there is none of them.
func contextName(f *genericclioptions.ConfigFlags) string {
	if f.Context != nil && *f.Context != "" {
		return fmt.Sprintf("%q", *f.Context)
	}
	if f.APIServer != nil && *f.APIServer != "" {
		return fmt.Sprintf("(server %s)", *f.APIServer)
	}
	raw, err := f.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return "(unreadable kubeconfig)"
	}
	if raw.CurrentContext == "" {
		return ""
	}
	return fmt.Sprintf("%q", raw.CurrentContext)
}

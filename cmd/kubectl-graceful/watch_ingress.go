package main

import (
	"fmt"
	"net/url"

	"github.com/spf13/pflag"
)

// addIngressAPIFlag adds --ingress-api: the Traefik API whose view of the
// pods' servers the watch reads (docs/ingress.md).
func addIngressAPIFlag(f *pflag.FlagSet, api *string) {
	f.StringVar(api, "ingress-api", "", "URL of the API of the Traefik that serves the pods (api.insecure, its traefik entry point, e.g. http://10.0.0.5:9000): the watch reads when Traefik fences and removes the pod's server and judges the stop against it")
}

// validateIngressAPI refuses an --ingress-api that is not an http(s) URL
// with a host.
func validateIngressAPI(api string) error {
	if api == "" {
		return nil
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--ingress-api %q is not an http(s) URL such as http://10.0.0.5:9000", api)
	}
	return nil
}

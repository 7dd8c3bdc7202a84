package main

import (
	"context"
	"fmt"
	"os"
)

// defaultNamespace is the namespace of objects without one, as kubectl
// apply picks it: -n, else the kubeconfig context's namespace, else
// "default". Manifest audits need no kubeconfig: when there is none (no
// file at $KUBECONFIG or ~/.kube/config), it is "default"; a kubeconfig that
// exists but cannot be read is an error, as it is for kubectl apply.
func (o *AuditOptions) defaultNamespace() (string, error) {
	ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err == nil {
		return ns, nil
	}
	if o.manifestMode() && os.IsNotExist(unwrapAll(err)) {
		return "default", nil
	}
	return "", fmt.Errorf("kubeconfig: %v", err)
}

// namespaceExists returns errNotFound when a live audit of one namespace
// names one the API server says does not exist: listing it finds nothing,
// which would read as a clean audit. A read the server refuses (RBAC) or
// fails is left to the audit's own reads to report.
func (o *AuditOptions) namespaceExists(ctx context.Context) error {
	if o.AllNamespaces {
		return nil
	}
	c, err := newClient(o.configFlags, clientLimits{})
	if err != nil {
		return nil
	}
	if namespaceMissing(ctx, c, o.namespace) {
		return errNotFound("namespace", "", o.namespace)
	}
	return nil
}

// unwrapAll returns the innermost error of a wrapped chain.
func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

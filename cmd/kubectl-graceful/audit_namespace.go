package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
)

// defaultNamespace is the namespace of objects without one, as kubectl
// apply picks it: -n, else the kubeconfig context's namespace, else
// "default". Manifest audits need no kubeconfig: when there is none (no
// file at $KUBECONFIG or ~/.kube/config), it is "default"; a kubeconfig that
// exists but cannot be read is an error, as it is for kubectl apply.
func (o *auditOptions) defaultNamespace() (string, error) {
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
// names one the API server says does not exist: listing it found nothing,
// which would read as a clean audit. A read the server refuses (RBAC) or
// fails is not an answer. c is nil when the kubeconfig cannot be loaded
// (load.Live says so).
func (o *auditOptions) namespaceExists(ctx context.Context, c kubernetes.Interface) error {
	if o.allNamespaces || c == nil {
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

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The one wording of each situation every command meets, so that the same
// mistake reads the same from audit, watch and drain: one line, exit 1.

// errMissingArg says what a command needs named, with its usage:
// "name a pod: kubectl graceful watch pod NAME".
func errMissingArg(what, usage string) error {
	return fmt.Errorf("name %s: kubectl graceful %s", what, usage)
}

// errNotFound says an object does not exist: `node "w-9" not found`,
// `pod "web" not found in namespace "shop"`.
func errNotFound(kind, namespace, name string) error {
	if namespace == "" {
		return fmt.Errorf("%s %q not found", kind, name)
	}
	return fmt.Errorf("%s %q not found in namespace %q", kind, name, namespace)
}

// errNoMatch says a label selector (-l) picks nothing.
func errNoMatch(kind, selector string) error {
	return fmt.Errorf("no %s matches -l %q", kind, selector)
}

// validateNodeArgs refuses what every command that takes nodes refuses:
// none named and no -l, names with -l, a name given twice. usage is the
// command after "kubectl graceful": "uncordon NAME... (or -l SELECTOR)".
func validateNodeArgs(names []string, selector, usage string) error {
	switch {
	case len(names) == 0 && selector == "":
		return errMissingArg("the nodes or select them with -l", usage)
	case len(names) > 0 && selector != "":
		return errors.New("name nodes or select them with -l, not both")
	}
	return firstNamedTwice("node", names)
}

// firstNamedTwice refuses the first name repeated in names: a typo as
// often as not, and no command does anything twice to one object.
func firstNamedTwice(kind string, names []string) error {
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%s %q is named twice", kind, n)
		}
	}
	return nil
}

// sayNotFound rewords an API server's NotFound in err (wrapped at any
// depth) in errNotFound's words: kind ("" takes the answer's resource,
// "deployments" read as "deployment") and the name the answer carries, or
// `namespace "x" not found` when namespace itself is missing (the API
// answers a Get in a missing namespace with the object's NotFound).
// Other errors are returned as they are.
func sayNotFound(ctx context.Context, c kubernetes.Interface, err error, kind, namespace string) error {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return err
	}
	if namespace != "" && c != nil && namespaceMissing(ctx, c, namespace) {
		return errNotFound("namespace", "", namespace)
	}
	d := status.Status().Details
	if d == nil {
		return err
	}
	kind = cmp.Or(kind, strings.TrimSuffix(d.Kind, "s"))
	if kind == "node" && c != nil {
		return nodeNotFound(ctx, c, d.Name)
	}
	return errNotFound(kind, namespace, d.Name)
}

// nodeNotFound says node name is not found, with the node most likely
// meant (didYouMean) where the nodes can be listed: node names are long
// and typed by hand.
func nodeNotFound(ctx context.Context, c kubernetes.Interface, name string) error {
	err := errNotFound("node", "", name)
	list, lerr := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if lerr != nil {
		return err
	}
	names := make([]string, 0, len(list.Items))
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	return fmt.Errorf("%w%s", err, didYouMean(name, names))
}

// namespaceMissing reports whether the API server says namespace does not
// exist; a read it refuses (RBAC) or fails is not taken as an answer.
func namespaceMissing(ctx context.Context, c kubernetes.Interface, namespace string) bool {
	_, err := c.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

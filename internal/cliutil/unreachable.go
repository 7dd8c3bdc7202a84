package cliutil

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// UnreachablePrefix starts the line every command prints when the cluster
// does not answer (README's exit status 1: "the same line from every
// command").
const UnreachablePrefix = "cannot reach the cluster"

// NoAnswer reports whether err is a request that got no answer: a
// *url.Error from client-go's HTTP client that eviction.Transient takes
// for the network (a connection refused, reset or timed out, a name that
// does not resolve, a connection closed before the answer), or one its
// client timed out waiting for. An API server
// that answered with a status is not one, nor are failing credentials
// (eviction.Credentials: a credential plugin that failed, a server
// certificate the kubeconfig does not trust), which no wait mends.
func NoAnswer(err error) bool {
	var ue *url.Error
	// A request timed out by its client (--request-timeout) wraps
	// context.DeadlineExceeded, which Transient leaves to the caller.
	return errors.As(err, &ue) && !eviction.Credentials(err) && (eviction.Transient(err) || ue.Timeout())
}

// Unreachable is the line for err when the cluster did not answer:
// "cannot reach the cluster of context C (server S): what failed", or
// "at server S" when context is "" or the --server form "(server S)".
// What failed is err's text with the request's method and URL cut out
// (the server is named already), so that what the command was doing
// ("reading pod ns/x") and the transport's cause remain.
func Unreachable(context, server string, err error) error {
	what := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		what = strings.Replace(what, ue.Error(), ue.Err.Error(), 1)
	}
	where := fmt.Sprintf("of context %s (server %s)", context, server)
	switch {
	case context == "" || strings.HasPrefix(context, "("):
		where = "at server " + server
	case server == "":
		where = "of context " + context
	}
	return fmt.Errorf("%s %s: %s", UnreachablePrefix, where, what)
}

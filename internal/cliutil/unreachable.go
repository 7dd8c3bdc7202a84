package cliutil

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
)

// UnreachablePrefix starts the line every command prints when the cluster
// does not answer (README's exit status 1: "the same line from every
// command").
const UnreachablePrefix = "cannot reach the cluster"

// NoAnswer reports whether err is a request that got no answer: a
// *url.Error from client-go's HTTP client caused by the network (a
// connection refused, reset or timed out, a name that does not resolve:
// a net.Error), by the TLS handshake (the server's certificate), or by a
// connection closed before the answer. An API server that answered with a
// status is not one, nor a request that never left: a credential plugin
// that failed is a *url.Error too, and the cluster was never asked.
func NoAnswer(err error) bool {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return false
	}
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var recordErr tls.RecordHeaderError
	return errors.As(ue.Err, &netErr) || errors.As(ue.Err, &certErr) || errors.As(ue.Err, &unknownAuthority) ||
		errors.As(ue.Err, &hostname) || errors.As(ue.Err, &recordErr) ||
		errors.Is(ue.Err, io.EOF) || errors.Is(ue.Err, io.ErrUnexpectedEOF)
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

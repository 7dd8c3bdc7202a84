package eviction

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransient(t *testing.T) {
	urlErr := func(err error) error { return &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/api", Err: err} }
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"EOF":                {urlErr(io.EOF), true},
		"unexpected EOF":     {urlErr(io.ErrUnexpectedEOF), true},
		"body cut":           {fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", io.ErrUnexpectedEOF), true},
		"connection reset":   {urlErr(&net.OpError{Op: "read", Err: syscall.ECONNRESET}), true},
		"connection refused": {urlErr(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), true},
		"dial timeout":       {urlErr(&net.OpError{Op: "dial", Err: timeoutErr{}}), true},
		"503":                {apierrors.NewServiceUnavailable("etcd down"), true},
		"500":                {apierrors.NewInternalError(errors.New("boom")), true},
		"504 timeout":        {apierrors.NewTimeoutError("slow", 1), true},
		"429 throttled":      {apierrors.NewTooManyRequests("slow down", 1), true},
		"429 budget":         {apierrors.NewTooManyRequests(budgetRefusedMessage, 0), false},
		"500 two budgets":    {apierrors.NewInternalError(errors.New(multipleBudgetsMessage)), false},
		"webhook denial 500": {statusError(t, webhookInternalBody), false},
		"webhook denial 429": {statusError(t, webhookTooManyBody), false},
		"403":                {apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "a", errors.New("no")), false},
		"404":                {apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "a"), false},
		"wrapped cancel":     {fmt.Errorf("x: %w", errCanceled()), false},
		"nil":                {nil, false},
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("%s: Transient = %v, want %v", name, got, c.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func errCanceled() error { return &url.Error{Op: "Get", URL: "x", Err: context.Canceled} }

// Failing credentials come as a *url.Error, a net.Error: they are not an
// outage to wait through.
func TestCredentialsAreNotTransient(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"exec plugin exits 1", &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: errors.New("getting credentials: exec: executable ./login failed with exit code 1")}},
		{"exec plugin missing", &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: errors.New(`getting credentials: exec: executable kubelogin not found`)}},
		{"exec plugin prints garbage", &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: errors.New("getting credentials: decoding stdout: couldn't get version/kind; json parse error")}},
		{"certificate authority does not match", &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}},
	} {
		if !Credentials(c.err) || Transient(c.err) {
			t.Errorf("%s: Credentials %v, Transient %v; want a credentials failure, not transient", c.name, Credentials(c.err), Transient(c.err))
		}
	}
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: syscall.ECONNREFUSED}
	if Credentials(refused) || !Transient(refused) {
		t.Errorf("a refused connection is an outage, not credentials")
	}
}

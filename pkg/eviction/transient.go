package eviction

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Transient reports whether err is the API server or the way to it failing
// for a while rather than an answer about the object: a transport error
// (EOF, connection reset or refused, a timeout, a lost HTTP/2 connection),
// a 5xx other than the eviction subresource's 500 for a pod under several
// budgets or an admission denial (whatever its code), or a 429 without a DisruptionBudget cause (API Priority and
// Fairness throttling). The request may or may not have been carried out:
// a caller that changed something reads it again before deciding.
// A cancelled or expired context is not transient: the caller stopped;
// nor are failing credentials (Credentials), which no retry mends.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || Credentials(err) {
		return false
	}
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		code := api.Status().Code
		switch kind := Read(err).Kind; {
		case kind == Throttled:
			return true
		case kind == MultipleBudgets || kind == BudgetRefused || kind == AdmissionRefused:
			return false
		}
		return code >= http.StatusInternalServerError || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
	}
	var netErr net.Error
	// client-go wraps a body cut mid-read ("unexpected error when reading
	// response body. Please retry.") with %w; IsProbableEOF compares the
	// error itself only.
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || utilnet.IsProbableEOF(err) || utilnet.IsConnectionReset(err) || utilnet.IsConnectionRefused(err) ||
		utilnet.IsHTTP2ConnectionLost(err) || utilnet.IsTimeout(err) || errors.As(err, &netErr)
}

// Credentials reports whether err is this client's credentials failing
// before any answer: an exec credential plugin that exits non-zero, is
// missing or prints what is not an ExecCredential (client-go's exec
// authenticator says "getting credentials: ...", as text: it wraps with
// %v), or a server certificate that the kubeconfig's certificate
// authority does not sign. They come wrapped in a *url.Error, which is a
// net.Error, and would otherwise read as the network failing.
func Credentials(err error) bool {
	var api apierrors.APIStatus
	var ue *url.Error
	if err == nil || errors.As(err, &api) || !errors.As(err, &ue) {
		return false // an answer from the server, or not a request's failure
	}
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	if errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify) {
		return true
	}
	msg := err.Error()
	// The server refusing the client certificate (expired, or of another
	// CA) ends the TLS handshake with this alert.
	return strings.Contains(msg, "getting credentials: ") || strings.Contains(msg, "remote error: tls: bad certificate") ||
		strings.Contains(msg, "remote error: tls: expired certificate")
}

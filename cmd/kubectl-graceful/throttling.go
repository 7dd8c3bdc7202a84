package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// throttlingSeen wraps rt, the transport of the drain's client (for
// rest.Config.Wrap), so that a throttled read comes back to the drain at
// once instead of being sent again by client-go itself, unseen (docs/drain.md,
// API faults). It drops the Retry-After header of a 429 or 5xx and keeps
// the wait in the body as a Status' details.retryAfterSeconds, rewriting
// API Priority and Fairness's plain-text answer (k8s.io/apiserver
// pkg/server/filters/priority-and-fairness.go, tooManyRequests) as that
// Status. Other answers pass as they are.
func throttlingSeen(rt http.RoundTripper) http.RoundTripper {
	return throttledReads{next: rt}
}

type throttledReads struct{ next http.RoundTripper }

func (t throttledReads) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 || resp.Header.Get("Retry-After") == "" {
		return resp, err
	}
	seconds, perr := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	resp.Header.Del("Retry-After")
	if perr != nil || strings.HasPrefix(resp.Header.Get("Content-Type"), "application/") {
		// A Status of the API server's own: details.retryAfterSeconds
		// holds the wait already.
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Code: int32(resp.StatusCode), Reason: reasonOf(resp.StatusCode),
		Message: strings.TrimSpace(string(body)), Details: &metav1.StatusDetails{RetryAfterSeconds: int32(seconds)}}
	data, _ := json.Marshal(st)
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Del("Content-Length")
	return resp, nil
}

// reasonOf is the Status reason the API server gives an answer of code
// (k8s.io/apimachinery's errors.NewGenericServerResponse).
func reasonOf(code int) metav1.StatusReason {
	switch code {
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	}
	return metav1.StatusReasonInternalError
}

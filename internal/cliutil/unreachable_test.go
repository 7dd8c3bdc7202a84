package cliutil

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"testing"
)

func TestUnreachableNamesTheClusterAndCutsTheRequest(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://10.0.0.1:6443/api/v1/pods/x", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: errors.New("connect: connection refused")}}
	wrapped := fmt.Errorf("reading pod shop/x: %w", refused)
	for _, c := range []struct {
		context, server string
		err             error
		want            string
	}{
		{`"prod"`, "https://10.0.0.1:6443", wrapped,
			`cannot reach the cluster of context "prod" (server https://10.0.0.1:6443): reading pod shop/x: dial tcp: connect: connection refused`},
		{"(server https://10.0.0.1:6443)", "https://10.0.0.1:6443", refused,
			"cannot reach the cluster at server https://10.0.0.1:6443: dial tcp: connect: connection refused"},
		{`"prod"`, "", errors.New("no answer within 10s"), `cannot reach the cluster of context "prod": no answer within 10s`},
	} {
		if got := Unreachable(c.context, c.server, c.err).Error(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	credentials := &url.Error{Op: "Get", URL: "https://10.0.0.1:6443/api", Err: errors.New("getting credentials: exec: executable login failed with exit code 1")}
	closed := &url.Error{Op: "Get", URL: "https://10.0.0.1:6443/api", Err: io.EOF}
	if !NoAnswer(wrapped) || !NoAnswer(closed) || NoAnswer(errors.New("pods \"x\" not found")) || NoAnswer(credentials) {
		t.Errorf("NoAnswer: a refused dial and a closed connection are, a status and a failed credential plugin are not")
	}
}

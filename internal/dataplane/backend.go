package dataplane

import (
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

var discardLog = log.New(io.Discard, "", 0)

// backend stands for one pod's app: an HTTP server on 127.0.0.1 that
// answers 200 with the pod's name.
type backend struct {
	pod  string
	addr string
	l    net.Listener
	srv  *http.Server

	once, closeOnce sync.Once
	sigterm         *time.Timer
}

func newBackend(pod string) (*backend, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &backend{pod: pod, addr: l.Addr().String(), l: l}
	b.srv = &http.Server{ErrorLog: discardLog, ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "pod "+pod+"\n") })}
	go func() { _ = b.srv.Serve(l) }()
	return b, nil
}

// terminate schedules the simulated SIGTERM after preStop: from then on
// the backend accepts no new connection (the app stops listening, finishes
// what it has).
func (b *backend) terminate(preStop time.Duration) {
	b.once.Do(func() { b.sigterm = time.AfterFunc(preStop, func() { _ = b.l.Close() }) })
}

// gone is the containers' exit: every connection is closed.
func (b *backend) gone() {
	b.closeOnce.Do(func() {
		if b.sigterm != nil {
			b.sigterm.Stop()
		}
		_ = b.srv.Close()
	})
}

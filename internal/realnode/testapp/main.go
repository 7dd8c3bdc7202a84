// Command testapp is the HTTP server the real node's tests and demo run
// (image localhost/kubectl-graceful/testapp:dev, docs/real-node.md). It
// answers GET / with 200 on $PORT (default 8080) and does on SIGTERM what
// $SIGTERM_ACTION says:
//
//	exit            exit at once (the default): in-flight requests are cut
//	drain:DURATION  keep serving DURATION (a Go duration), then finish the
//	                requests in flight and exit 0
//	ignore          go on serving until SIGKILL
//
// Every SIGTERM is logged with its time ("SIGTERM at <RFC 3339, ns>"), and
// so is the exit, so that tests hold the watch's estimates to the process's
// own clock; with $SIGNAL_LOG set they are also appended to that file (a
// hostPath the test reads after the pod and its log are gone). With
// $QUIT_PATH set, a GET of that path makes it exit at once
// (a proxy's /quitquitquit, for a sidecar whose preStop ends it).
package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	action, drain, err := parseAction(os.Getenv("SIGTERM_ACTION"))
	if err != nil {
		logf("bad SIGTERM_ACTION: %v", err)
		os.Exit(2)
	}
	port := cmp.Or(os.Getenv("PORT"), "8080")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintln(w, "ok")
	})
	if q := os.Getenv("QUIT_PATH"); q != "" {
		mux.HandleFunc("GET "+q, func(w http.ResponseWriter, _ *http.Request) {
			logf("quit requested")
			w.WriteHeader(http.StatusOK)
			go exit(0)
		})
	}
	srv := &http.Server{Addr: ":" + port, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM)
	go onSigterm(sigs, srv, action, drain)
	logf("serving on :%s, SIGTERM_ACTION=%s", port, cmp.Or(os.Getenv("SIGTERM_ACTION"), "exit"))
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		logf("serve: %v", err)
		exit(1)
	}
	select {} // Shutdown's caller exits
}

// parseAction reads SIGTERM_ACTION.
func parseAction(s string) (string, time.Duration, error) {
	switch {
	case s == "" || s == "exit":
		return "exit", 0, nil
	case s == "ignore":
		return "ignore", 0, nil
	case strings.HasPrefix(s, "drain:"):
		d, err := time.ParseDuration(strings.TrimPrefix(s, "drain:"))
		if err != nil || d < 0 {
			return "", 0, fmt.Errorf("%q: want drain:DURATION such as drain:5s", s)
		}
		return "drain", d, nil
	}
	return "", 0, fmt.Errorf("%q: want exit, ignore or drain:DURATION", s)
}

func onSigterm(sigs <-chan os.Signal, srv *http.Server, action string, drain time.Duration) {
	for range sigs {
		logf("SIGTERM at %s", time.Now().UTC().Format(time.RFC3339Nano))
		switch action {
		case "exit":
			exit(0)
		case "drain":
			go func() {
				time.Sleep(drain)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
				exit(0)
			}()
		}
	}
}

func exit(code int) {
	logf("exit %d at %s", code, time.Now().UTC().Format(time.RFC3339Nano))
	os.Exit(code)
}

func logf(format string, args ...any) {
	line := fmt.Sprintf("testapp: "+format+"\n", args...)
	_, _ = os.Stdout.WriteString(line)
	if p := os.Getenv("SIGNAL_LOG"); p != "" {
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
	}
}

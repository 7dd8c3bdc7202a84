package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// setupLogging keeps client-go's own logging off the user's terminal: klog
// (reflector errors when the API server goes away, client-side throttling
// notices) is silent unless -v N asks for it, as kubectl's -v does, and
// then each message is one escaped line on errOut; the API server's
// warnings ("Warning: policy/v1beta1 ... is deprecated") are printed once
// each, escaped, as kubectl prints them. It binds -v/--v to root's
// persistent flags and sets process-wide state (klog's logger, client-go's
// default warning handler): call it once, from newCmdRoot.
func setupLogging(root *cobra.Command, errOut io.Writer) {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	v := klogFlags.Lookup("v")
	v.Usage = "Log level of the Kubernetes client library (klog), written to stderr; 0, the default, writes none"
	root.PersistentFlags().AddGoFlag(v)
	w := &lineWriter{out: errOut}
	klog.SetLogger(logr.New(&klogSink{out: w, verbosity: func() int {
		n, _ := strconv.Atoi(v.Value.String())
		return n
	}}))
	// The API server's Warning headers: each distinct text once, as
	// kubectl prints them (client-go's own writer), escaped by w.
	rest.SetDefaultWarningHandler(rest.NewWarningWriter(w, rest.WarningWriterOptions{Deduplicate: true}))
}

// lineWriter writes whole lines to out, one writer at a time (klog and
// client-go's warnings come from many goroutines).
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *lineWriter) line(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = io.WriteString(w.out, s+"\n")
}

// Write writes p, one line of client-go's warning writer, escaped
// (termsafe): the text is the API server's.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.line(termsafe.Escape(strings.TrimSuffix(string(p), "\n")))
	return len(p), nil
}

// klogSink receives everything klog and client-go's contextual logging
// write. Nothing is written at verbosity 0; at -v N, messages of level N
// or lower and every error, each as one escaped line.
type klogSink struct {
	out       *lineWriter
	verbosity func() int
	name      string
	values    []any
}

// Init implements logr.LogSink.
func (s *klogSink) Init(logr.RuntimeInfo) {}

// Enabled implements logr.LogSink.
func (s *klogSink) Enabled(level int) bool {
	v := s.verbosity()
	return v > 0 && level <= v
}

// Info implements logr.LogSink.
func (s *klogSink) Info(level int, msg string, kv ...any) {
	if s.Enabled(level) {
		s.write("I", msg, kv)
	}
}

// Error implements logr.LogSink: logr does not ask Enabled before errors.
func (s *klogSink) Error(err error, msg string, kv ...any) {
	if s.verbosity() <= 0 {
		return
	}
	if err != nil {
		kv = append([]any{"err", err}, kv...)
	}
	s.write("E", msg, kv)
}

// WithValues implements logr.LogSink.
func (s *klogSink) WithValues(kv ...any) logr.LogSink {
	c := *s
	c.values = append(append([]any{}, s.values...), kv...)
	return &c
}

// WithName implements logr.LogSink.
func (s *klogSink) WithName(name string) logr.LogSink {
	c := *s
	c.name = strings.TrimPrefix(s.name+"/"+name, "/")
	return &c
}

func (s *klogSink) write(sev, msg string, kv []any) {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(msg))
	all := append(append([]any{}, s.values...), kv...)
	for i := 0; i+1 < len(all); i += 2 {
		fmt.Fprintf(&b, " %v=%q", all[i], fmt.Sprint(all[i+1]))
	}
	prefix := "klog " + sev
	if s.name != "" {
		prefix += " " + s.name
	}
	s.out.line(prefix + ": " + termsafe.Escape(b.String()))
}

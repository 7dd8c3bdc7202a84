package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

func TestKlogIsSilentByDefaultAndEscapedWithV(t *testing.T) {
	var errOut bytes.Buffer
	root := newCmdRoot(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &errOut}, nil)
	t.Cleanup(func() { _ = root.PersistentFlags().Set("v", "0") })

	klog.Error("reflector: failed to list \x1b[2J")
	klog.ErrorS(errors.New("connection refused"), "Unhandled Error")
	klog.Info("Waited for 5.2s due to client-side throttling")
	klog.Background().Info("contextual")
	if errOut.Len() != 0 {
		t.Fatalf("klog wrote at the default verbosity:\n%s", errOut.String())
	}

	if err := root.ParseFlags([]string{"-v", "2"}); err != nil {
		t.Fatal(err)
	}
	klog.V(2).Info("throttled \x1b]0;title\a\u202e")
	klog.V(3).Info("too detailed")
	klog.ErrorS(errors.New("EOF"), "watch of *v1.Pod ended", "pod", "web\u009b")
	got := errOut.String()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `throttled \x1b]0;title\a\u202e`) ||
		!strings.Contains(lines[1], `watch of *v1.Pod ended err="EOF" pod="web\u009b"`) {
		t.Errorf("-v 2 wrote:\n%s", got)
	}
	for _, r := range got {
		if r != '\n' && (r < ' ' || r == 0x9b || r == 0x202e) {
			t.Fatalf("raw control %U in %q", r, got)
		}
	}
}

// The API server's Warning headers reach the user once each, escaped, on
// stderr, not through klog.
func TestServerWarningsArePrintedOnceEscaped(t *testing.T) {
	var errOut bytes.Buffer
	newCmdRoot(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &errOut}, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// client-go drops warnings holding C0 or C1 controls; bidi overrides pass.
		w.Header().Add("Warning", "299 - \"policy/v1beta1 PodDisruptionBudget is deprecated \u202ered\u2066x\"")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","items":[]}`))
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := cs.CoreV1().Pods("x").List(context.Background(), metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := "Warning: policy/v1beta1 PodDisruptionBudget is deprecated \\u202ered\\u2066x\n"
	if errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}

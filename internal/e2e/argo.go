package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// argoCRDFiles are the CRDs of the release (manifests/crds).
var argoCRDFiles = []string{"rollout-crd.yaml", "analysis-run-crd.yaml", "analysis-template-crd.yaml",
	"cluster-analysis-template-crd.yaml", "experiment-crd.yaml"}

// argoCRD is applied once per test process: every test of the process
// shares the cluster, and a CRD is cluster-wide.
var argoCRD sync.Once

// ArgoRollouts runs the real Argo Rollouts controller
// (localcluster.ArgoRolloutsVersion, built into the cache on first use)
// for namespace ns until the test ends: its CRDs applied from the
// Go module cache, the controller started out of the cluster with the
// cluster's kubeconfig, watching ns only (--namespaced), without leader
// election, and stopped (SIGTERM, then SIGKILL) by t.Cleanup. Its log is
// printed when the test fails. It returns once the controller's health
// endpoint answers.
func (e *Env) ArgoRollouts(t testing.TB, ns string) {
	t.Helper()
	argo, err := localcluster.EnsureArgoRollouts(e.opts.CacheDir, os.Stderr)
	if err != nil {
		t.Fatalf("Argo Rollouts controller: %v", err)
	}
	var applied Result
	argoCRD.Do(func() {
		// Server-side: a CRD is larger than the annotation that a
		// client-side apply keeps. All five: the controller waits for
		// the informers of each (AnalysisRuns, Experiments, ...).
		args := []string{"apply", "--server-side", "--force-conflicts"}
		for _, f := range argoCRDFiles {
			args = append(args, "-f", filepath.Join(argo.CRDDir, f))
		}
		applied = e.Kubectl(t, args...)
		if applied.ExitCode == 0 {
			applied = e.Kubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "crd/rollouts.argoproj.io")
		}
	})
	if applied.ExitCode != 0 {
		t.Fatalf("applying the Rollout CRD: exit %d: %s%s", applied.ExitCode, applied.Stdout, applied.Stderr)
	}
	ports, err := hostproc.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd := exec.Command(argo.Controller, "--kubeconfig", e.Kubeconfig, "--namespaced", "--namespace", ns,
		"--leader-elect=false", "--healthzPort", fmt.Sprint(ports[0]), "--metricsport", fmt.Sprint(ports[1]))
	// One writer for both: exec then has a single goroutine write it.
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the Argo Rollouts controller: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("Argo Rollouts controller's log (last lines):\n%s", hostproc.Tail(strings.TrimSpace(log.String()), 60))
		}
	})
	WaitFor(t, SetupWait, "the Argo Rollouts controller's health endpoint", func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[0]))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

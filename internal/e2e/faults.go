package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// FaultClusterName names the local cluster whose control plane fault tests
// break (localcluster's Options.Sibling): never the shared one, which other
// test packages use at the same time. `make cluster-down` stops it too.
const FaultClusterName = localcluster.FaultsName

// FaultEnv is the fault cluster as one test holds it: the test may pause,
// kill and restart its API server. While the test runs a supervisor does
// what the kubelet does for a control plane's static pods: it starts again,
// with the same command line, any component that died (the controller
// manager and the scheduler exit when they cannot renew their leader
// lease through a paused API server), except the one the test keeps down.
type FaultEnv struct {
	*Env
	t testing.TB

	mu    sync.Mutex
	procs map[string]*localcluster.ComponentProcess
	down  map[string]bool
	// Restarts lists what the supervisor started again, in order
	// ("kube-controller-manager at 12:01:02").
	Restarts []string
}

var faults lazyEnv

// FaultCluster returns the fault cluster (one Ready kwok node; tests make
// their own with Env.Node), starting it on first use, and holds it for the
// test: a lock shared by every test process of the checkout makes fault
// tests run one at a time, and at cleanup the control plane is whole and
// answering again. Fault tests call t.Parallel so that the rest of their
// package runs meanwhile; they never overlap one another: each waits for
// the previous one to end (holding one of the -parallel slots).
func FaultCluster(t *testing.T) *FaultEnv {
	t.Helper()
	Require(t, "breaks a control plane of its own")
	opts, err := clusterOptions(FaultClusterName)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := opts.Lock("faults")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	env, err := faults.get(func() (*Env, error) { return startNamed(FaultClusterName) })
	if err != nil {
		t.Fatalf("fault cluster: %v", err)
	}
	f := &FaultEnv{Env: env, t: t, procs: map[string]*localcluster.ComponentProcess{}, down: map[string]bool{}}
	for _, c := range localcluster.Components {
		p, err := opts.RememberComponent(c)
		if err != nil {
			t.Fatalf("fault cluster: %v (run `make cluster-down` to start it afresh)", err)
		}
		f.procs[c] = p
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	// The supervisor starts dead components again every second.
	go func() { wait.Until(f.restartDead, time.Second, stop); close(done) }()
	t.Cleanup(func() {
		close(stop)
		<-done
		f.heal()
	})
	return f
}

// restartDead starts each dead component the test does not keep down.
func (f *FaultEnv) restartDead() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range localcluster.Components {
		if f.down[c] {
			continue
		}
		if _, alive, err := f.opts.ComponentPID(c); err == nil && !alive {
			if _, err := f.opts.StartComponent(f.procs[c]); err == nil {
				f.Restarts = append(f.Restarts, fmt.Sprintf("%s at %s", c, time.Now().UTC().Format("15:04:05")))
			}
		}
	}
}

// heal resumes every component, starts the dead ones and waits until the
// API server answers again.
func (f *FaultEnv) heal() {
	f.mu.Lock()
	f.down = map[string]bool{}
	f.mu.Unlock()
	for _, c := range localcluster.Components {
		_ = f.opts.SignalComponent(c, syscall.SIGCONT)
	}
	f.restartDead()
	f.waitReady()
}

func (f *FaultEnv) waitReady() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := f.opts.WaitReady(ctx); err != nil {
		f.t.Fatal(err)
	}
}

// PauseAPIServer freezes the API server process (SIGSTOP) for d, then
// resumes it (SIGCONT): connections stay open, nothing is answered, as a
// server stuck in a long GC pause or on a frozen VM. It returns once the
// server answers /readyz again.
func (f *FaultEnv) PauseAPIServer(d time.Duration) {
	f.t.Helper()
	component := localcluster.KubeAPIServer
	if err := f.opts.SignalComponent(component, syscall.SIGSTOP); err != nil {
		f.t.Fatal(err)
	}
	time.Sleep(d)
	if err := f.opts.SignalComponent(component, syscall.SIGCONT); err != nil {
		f.t.Fatal(err)
	}
	f.waitReady()
}

// APIServerDown kills the API server (SIGKILL: open connections reset,
// new ones refused), calls during when set (which must not block: it
// starts what is to meet the outage, a command run in the background) and
// starts the server again with the same command line down after the kill;
// it returns once the server answers /readyz, saying how long the API was
// unavailable in all.
func (f *FaultEnv) APIServerDown(down time.Duration, during func()) time.Duration {
	f.t.Helper()
	component := localcluster.KubeAPIServer
	start := time.Now()
	f.mu.Lock()
	f.down[component] = true
	f.mu.Unlock()
	if err := f.opts.KillComponent(component); err != nil {
		f.t.Fatal(err)
	}
	if during != nil {
		during()
	}
	time.Sleep(down - time.Since(start))
	f.mu.Lock()
	_, err := f.opts.StartComponent(f.procs[component])
	delete(f.down, component)
	f.mu.Unlock()
	if err != nil {
		f.t.Fatal(err)
	}
	f.waitReady()
	return time.Since(start)
}

// FaultRuns is how many times in a row RepeatFault runs a scenario: once
// in `make test`, FaultRunsVar (5 in `make test-faults`, which .ci/run
// runs too) when set.
var FaultRuns = faultRuns()

// FaultRunsVar names the environment variable that sets FaultRuns.
const FaultRunsVar = "GRACEFUL_FAULT_RUNS"

func faultRuns() int {
	if n, err := strconv.Atoi(os.Getenv(FaultRunsVar)); err == nil && n > 0 {
		return n
	}
	return 1
}

// RepeatFault holds the fault cluster and runs scenario FaultRuns times in
// a row, each as a subtest (run1 ...) making its own namespace and nodes;
// a failed run does not stop the next. It logs one line per run: pass or
// FAIL, the run's duration and what scenario returned (the command's exit
// code and summary), plus the components the supervisor started again,
// for docs/reliability.md.
func RepeatFault(t *testing.T, scenario func(t *testing.T, fe *FaultEnv) string) {
	t.Helper()
	fe := FaultCluster(t)
	lines := repeatRuns(t, func(t *testing.T) string {
		fe.t = t
		defer func() { fe.t = t }()
		return scenario(t, fe)
	})
	fe.t = t
	fe.mu.Lock()
	restarts := fe.Restarts
	fe.mu.Unlock()
	t.Logf("%s, %d runs in a row (components the supervisor started again: %v):\n%s",
		t.Name(), FaultRuns, restarts, strings.Join(lines, "\n"))
}

// RepeatRealFault runs a real-node fault scenario FaultRuns times in a
// row, each as a subtest (run1 ...), on the checkout's cluster with its
// real nodes (the test holds them through Env.RealNode or RealNodes); a
// failed run does not stop the next. It logs one line per run, as
// RepeatFault does.
func RepeatRealFault(t *testing.T, scenario func(t *testing.T) string) {
	t.Helper()
	lines := repeatRuns(t, scenario)
	t.Logf("%s, %d runs in a row:\n%s", t.Name(), FaultRuns, strings.Join(lines, "\n"))
}

// repeatRuns runs scenario FaultRuns times as subtests and returns one
// line per run: pass or FAIL, its duration and what scenario returned.
func repeatRuns(t *testing.T, scenario func(t *testing.T) string) []string {
	t.Helper()
	var lines []string
	for i := 1; i <= FaultRuns; i++ {
		start := time.Now()
		var outcome string
		ok := t.Run(fmt.Sprintf("run%d", i), func(t *testing.T) { outcome = scenario(t) })
		verdict := "pass"
		if !ok {
			verdict = "FAIL"
		}
		lines = append(lines, fmt.Sprintf("run %d: %s in %s: %s", i, verdict, time.Since(start).Round(100*time.Millisecond), outcome))
	}
	return lines
}

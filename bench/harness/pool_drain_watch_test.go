package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// Each watch line's delay is its arrival minus its +ms offset, against
// the fastest line; drain lines, "start" lines and gap lines are not
// deliveries.
func TestTextLatencies(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := &lineClock{}
	at := func(ms int, text string) {
		l.lines = append(l.lines, timedLine{at: t0.Add(time.Duration(ms) * time.Millisecond), text: []byte(text)})
	}
	at(1, "     start  12:00:00  n1  ns/Deployment/a  a-1  pod  Running")
	at(2, "node n1 cordoned")
	at(2, "    before  --:--:--  n1  ns/Deployment/a  a-1  control-plane  pod object deleted (seen by re-list)")
	at(3, "     +0 ms  12:00:00  n1  ns/Deployment/a  a-1  control-plane  deletionTimestamp set") // delay 3 ms: the fastest
	at(510, "   +500 ms  --:--:--  -  -  Service ns/a  capacity  ready endpoints 1 of 2")         // 10 ms after 500
	at(1050, "  +1000 ms  --------  watch  pods of node n1: watch lost, re-listing (gap)")        // a gap line
	at(2103, "  +2000 ms  12:00:02  n2  ns/Deployment/b  b-1  kubelet  Killing")                  // 103 ms after 2000
	got := l.textLatencies()
	want := []time.Duration{0, 7 * time.Millisecond, 100 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: delay %s, want %s", i, got[i], want[i])
		}
	}
	if n := l.beforeClock(); n != 1 {
		t.Errorf("%d lines before the clock, want 1", n)
	}
	if (&lineClock{}).textLatencies() != nil {
		t.Error("no lines: want no delays")
	}
}

// Watches are counted once per distinct watch URL, whatever the log
// repeats; lists and gets are not watches.
func TestDistinctWatches(t *testing.T) {
	log := `klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn1" status="200 OK" milliseconds="13"
klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&resourceVersion=9&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/apis/discovery.k8s.io/v1/endpointslices?resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
node n1 drained
`
	if got := distinctWatches(log); got != 3 {
		t.Errorf("distinctWatches = %d, want 3 (a re-watch from a new resourceVersion counts again)", got)
	}
}

// The pool the watches are compared at keeps the nodes, the replicas and
// the budgets, with a tenth of the Deployments.
func TestTenth(t *testing.T) {
	got := tenth(watchPool2000)
	if got.Nodes != 50 || got.Pods != 200 || got.PDBs != 20 || got.Replicas() != 10 || got.MaxUnavailable != 1 || !got.Services {
		t.Errorf("tenth of the default pool: %+v", got)
	}
	if got := tenth(watchPool20); got.Pods != 2 || got.PDBs != 1 || got.Validate() != nil {
		t.Errorf("tenth of the small pool: %+v (%v)", got, got.Validate())
	}
	for _, s := range []fixture.PoolSpec{watchPool2000, watchPool20} {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// At tiny scale (the smoke test's, beside the tests) the rows are left
// out with the reason the smoke test accepts, before any cluster access.
func TestDrainWatchSkippedAtTiny(t *testing.T) {
	tiny, err := ScaleByName("tiny")
	if err != nil {
		t.Fatal(err)
	}
	rows := (&harness{cfg: BenchConfig{Scale: tiny}}).drainWatch(context.Background())
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10", len(rows))
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.Ours, NotMeasuredPrefix+"skipped at tiny scale") || r.Target == "" {
			t.Errorf("row %q: ours %q, target %q", r.What, r.Ours, r.Target)
		}
	}
}

// drain --watch starts every live line with its clock ("[+3.108s]"): the
// watch lines behind it are still measured, and still counted "before".
func TestTextLatenciesWithDrainClock(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := &lineClock{}
	at := func(ms int, text string) {
		l.lines = append(l.lines, timedLine{at: t0.Add(time.Duration(ms) * time.Millisecond), text: []byte(text)})
	}
	at(2, "[+0.002s] n1: evicting 1 pod(s)")
	at(3, "[+0.003s]     before  --:--:--  n1  ns/Deployment/a  a-1  control-plane  pod object deleted (seen by re-list)")
	at(5, "[+0.005s]      +0 ms  12:00:00  n1  ns/Deployment/a  a-1  control-plane  deletionTimestamp set")
	at(1012, "[+1.012s]  +1000 ms  12:00:01  n1  ns/Deployment/a  a-1  kubelet  Killing") // 7 ms after the first
	got := l.textLatencies()
	if len(got) != 2 || got[0] != 0 || got[1] != 7*time.Millisecond {
		t.Errorf("got %v, want [0s 7ms]", got)
	}
	if n := l.beforeClock(); n != 1 {
		t.Errorf("%d lines before the clock, want 1", n)
	}
}

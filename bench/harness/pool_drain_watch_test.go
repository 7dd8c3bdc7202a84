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
	l, at := testClock()
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
	l, at := testClock()
	at(2, "[+0.002s] n1: evicting 1 pod(s)")
	at(3, "[+0.003s]     before  --:--:--  n1  ns/Deployment/a  a-1  control-plane  pod object deleted (seen by re-list)")
	at(5, "[+0.005s]      +0 ms  12:00:00  n1  ns/Deployment/a  a-1  control-plane  deletionTimestamp set")
	at(1012, "[+1.012 s]  +1000 ms  12:00:01  n1  ns/Deployment/a  a-1  kubelet  Killing")  // 7 ms after the first
	at(1013, "[+  1.013 s]  +1001 ms  12:00:01  n1  ns/Deployment/a  a-1  kubelet  Killed") // today's stamp, right aligned
	got := l.textLatencies()
	if len(got) != 3 || got[0] != 0 || got[1] != 7*time.Millisecond || got[2] != 7*time.Millisecond {
		t.Errorf("got %v, want [0s 7ms 7ms]", got)
	}
	if n := l.beforeClock(); n != 1 {
		t.Errorf("%d lines before the clock, want 1", n)
	}
}

// The wall time splits at the first line and at the pool summary; the
// watch's tail (settle, summary) is what follows the pool summary.
func TestDrainPhases(t *testing.T) {
	l, at := testClock()
	at(0, "[+0.036s]      start  --:--:--  -  -  Service ns/d-00  capacity  ready endpoints 2 of 2")
	at(3900, "[+3.946s] Pool summary: 2 node(s), 2 drained, 0 partly drained, 0 untouched, 0 gone, in 3.8s")
	at(5400, "Drain verdict for n1, n2: SAFE")
	got := l.phases(5600 * time.Millisecond)
	t0 := l.lines[0].at
	want := drainPhases{start: 200 * time.Millisecond, drain: 3900 * time.Millisecond, after: 1500 * time.Millisecond, ok: true}
	if got != want {
		t.Errorf("phases = %+v, want %+v", got, want)
	}
	if got.String() != "to its first line 0.20 s, drain 3.90 s, after the pool summary 1.50 s" {
		t.Errorf("cell %q", got.String())
	}
	if p := (&lineClock{lines: []timedLine{{at: t0, text: []byte("node/n1 cordoned")}}}).phases(time.Second); p.ok {
		t.Errorf("kubectl's output has no pool summary: %+v", p)
	}
}

// testClock returns an empty lineClock and a func that adds a line to it
// arriving ms milliseconds after 2026-12-01 12:00 UTC.
func testClock() (*lineClock, func(ms int, text string)) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := &lineClock{}
	return l, func(ms int, text string) {
		l.lines = append(l.lines, timedLine{at: t0.Add(time.Duration(ms) * time.Millisecond), text: []byte(text)})
	}
}

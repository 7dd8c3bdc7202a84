package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// watch measures `kubectl graceful watch pod NAME --delete -o json` on pods
// behind a Service: the delivery-to-line latency of every change (the time
// between our process receiving the notification, the line's localTime,
// and the line reaching the harness through the pipe) and the peak RSS in a
// namespace crowded with WatchSlices EndpointSlices against the same watch
// in an empty namespace. It also runs pkg/timeline's in-process
// BenchmarkDeliveryToLine and the probe's benchmarks when the scale is not
// tiny.
func (h *harness) watch(ctx context.Context) []Row {
	n := h.cfg.Scale.WatchSlices
	p50Row := fmt.Sprintf("watch pod: delivery-to-line p50 (live, %d EndpointSlices in ns)", n)
	p99Row := fmt.Sprintf("watch pod: delivery-to-line p99 (live, %d EndpointSlices in ns)", n)
	rssRow := fmt.Sprintf("watch pod: peak RSS, ns with %d EndpointSlices vs empty ns", n)
	targets := []string{"<= 100 ms", "<= 100 ms", "<= 1.25x (flat)"}
	rows := func(reason string) []Row {
		return []Row{notMeasured(p50Row, targets[0], reason), notMeasured(p99Row, targets[1], reason), notMeasured(rssRow, targets[2], reason)}
	}
	if !h.selected("watch") {
		return append(rows(notSelected), notMeasured(goBenchRow, goBenchTarget, notSelected),
			notMeasured(probeAddedRow, probeAddedTarget, notSelected), notMeasured(probeStampRow, probeStampTarget, notSelected))
	}
	var out []Row
	if reason := h.missing("watch pod"); reason != "" {
		out = rows(reason)
	} else if lat, crowded, empty, err := h.watchLive(ctx); err != nil {
		out = rows(err.Error())
	} else {
		p50, p99 := percentile(lat, 50), percentile(lat, 99)
		out = []Row{
			{What: p50Row, Ours: ms(p50) + fmt.Sprintf(" (%d lines)", len(lat)), Target: targets[0], Met: met(p50 <= 100*time.Millisecond)},
			{What: p99Row, Ours: ms(p99), Target: targets[1], Met: met(p99 <= 100*time.Millisecond)},
			{What: rssRow, Ours: mb(crowded), Theirs: mb(empty) + " empty ns", Ratio: ratio(float64(crowded), float64(empty)), Target: targets[2], Met: met(float64(crowded) <= 1.25*float64(empty))},
		}
	}
	return append(append(out, h.watchGoBench(ctx)), h.probeGoBench(ctx)...)
}

// watchLive runs WatchRuns watches in each namespace, alternating, and
// returns the latencies seen in the crowded one and the median peak RSS in
// each.
func (h *harness) watchLive(ctx context.Context) (lat []time.Duration, crowded, empty int64, err error) {
	name := h.cfg.Scale.Fixture.Name
	node := fixture.Node(name, name+"-watch-node", nil)
	nsCrowded, nsEmpty := fixture.Namespace(name, name+"-watch-crowded"), fixture.Namespace(name, name+"-watch-empty")
	cleanup := context.WithoutCancel(ctx)
	defer func() {
		for _, ns := range []*corev1.Namespace{nsCrowded, nsEmpty} {
			_ = h.cs.CoreV1().Namespaces().Delete(cleanup, ns.Name, metav1.DeleteOptions{})
		}
		_ = h.cs.CoreV1().Nodes().Delete(cleanup, node.Name, metav1.DeleteOptions{})
	}()
	creates := []func(context.Context) error{
		func(ctx context.Context) error {
			_, err := h.cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
			return err
		},
		func(ctx context.Context) error {
			_, err := h.cs.CoreV1().Namespaces().Create(ctx, nsCrowded, metav1.CreateOptions{})
			return err
		},
		func(ctx context.Context) error {
			_, err := h.cs.CoreV1().Namespaces().Create(ctx, nsEmpty, metav1.CreateOptions{})
			return err
		},
	}
	if err := fixture.Parallel(ctx, 3, creates); err != nil {
		return nil, 0, 0, err
	}
	start := time.Now()
	creates = nil
	for _, s := range fixture.EndpointSlices(name, nsCrowded.Name, h.cfg.Scale.WatchSlices) {
		creates = append(creates, func(ctx context.Context) error {
			_, err := h.cs.DiscoveryV1().EndpointSlices(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
			return err
		})
	}
	if err := fixture.Parallel(ctx, fixture.DefaultConcurrency, creates); err != nil {
		return nil, 0, 0, err
	}
	h.logf("watch: %d EndpointSlices created in %s", h.cfg.Scale.WatchSlices, secs(time.Since(start)))
	if err := localcluster.WaitNodeReady(ctx, h.cs, node.Name, time.Minute); err != nil {
		return nil, 0, 0, err
	}
	var rssCrowded, rssEmpty []int64
	for r := 0; r < h.cfg.Scale.WatchRuns; r++ {
		order := []string{nsCrowded.Name, nsEmpty.Name}
		if r%2 == 1 {
			order = []string{nsEmpty.Name, nsCrowded.Name}
		}
		for _, ns := range order {
			l, rss, err := h.watchOne(ctx, ns, fmt.Sprintf("web-%d", r), node.Name)
			if err != nil {
				return nil, 0, 0, err
			}
			h.logf("watch run %d in %s: %d lines, p99 %s, %s", r, ns, len(l), ms(percentile(l, 99)), mb(rss))
			if ns == nsCrowded.Name {
				lat, rssCrowded = append(lat, l...), append(rssCrowded, rss)
			} else {
				rssEmpty = append(rssEmpty, rss)
			}
		}
	}
	return lat, medianInt(rssCrowded), medianInt(rssEmpty), nil
}

// watchOne creates a served pod, runs our watch with --delete on it and
// returns each event line's delivery-to-line latency and the peak RSS.
func (h *harness) watchOne(ctx context.Context, ns, name, node string) ([]time.Duration, int64, error) {
	pod, svc := fixture.ServedPod(h.cfg.Scale.Fixture.Name, ns, name, node, 2*time.Second)
	if _, err := h.cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return nil, 0, err
	}
	if _, err := h.cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return nil, 0, err
	}
	if err := fixture.WaitServed(ctx, h.cs, ns, name, time.Minute); err != nil {
		return nil, 0, err
	}
	lines := &lineClock{}
	res, err := measure(ctx, command{
		argv:   []string{h.cfg.Binary, "watch", "pod", name, "-n", ns, "--delete", "-o", "json", "--settle", "500ms", "--timeout", "2m", "--kubeconfig", h.cfg.Kubeconfig},
		ok:     []int{0, 2},
		stdout: lines,
	})
	if err != nil {
		return nil, 0, err
	}
	lat, err := lines.latencies()
	if err != nil {
		return nil, 0, err
	}
	if len(lat) == 0 {
		return nil, 0, fmt.Errorf("watch pod %s/%s printed no event lines", ns, name)
	}
	return lat, res.MaxRSS, nil
}

// lineClock is the watch's stdout: it notes when each complete line
// arrived.
type lineClock struct {
	mu      sync.Mutex
	partial []byte
	lines   []timedLine
}

type timedLine struct {
	at   time.Time
	text []byte
}

func (l *lineClock) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, timedLine{at: now, text: append([]byte(nil), l.partial[:i]...)})
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

// latencies returns, for every "event" line seen live (not replayed from
// before the watch started), its arrival time minus its localTime: when our
// process received the notification.
func (l *lineClock) latencies() ([]time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Duration
	for _, ln := range l.lines {
		var e struct {
			Type    string    `json:"type"`
			Kind    string    `json:"kind"`
			Local   time.Time `json:"localTime"`
			Initial bool      `json:"beforeWatch"`
		}
		if err := json.Unmarshal(ln.text, &e); err != nil {
			return nil, fmt.Errorf("watch -o json printed a line that is not JSON: %q", hostproc.Tail(string(ln.text), 1))
		}
		// DeleteSent is written by the command itself, not delivered by
		// a watch.
		if e.Type != "event" || e.Initial || e.Local.IsZero() || e.Kind == "delete-sent" {
			continue
		}
		out = append(out, ln.at.Sub(e.Local))
	}
	return out, nil
}

const (
	goBenchRow    = "watch pod: delivery-to-line p99 (pkg/timeline BenchmarkDeliveryToLine, in-process)"
	goBenchTarget = "<= 100 ms"
)

// watchGoBench runs pkg/timeline's BenchmarkDeliveryToLine (the watch's own
// in-process benchmark: fake watcher to written line) and reports its p99.
func (h *harness) watchGoBench(ctx context.Context) Row {
	what, target := goBenchRow, goBenchTarget
	if h.cfg.Scale.Name == "tiny" {
		return notMeasured(what, target, "skipped at tiny scale (compiles pkg/timeline's tests)")
	}
	if _, err := os.Stat(filepath.Join(h.cfg.RepoRoot, "pkg", "timeline", "bench_test.go")); err != nil {
		return notMeasured(what, target, "pkg/timeline/bench_test.go not on main")
	}
	out, err := h.timelineGoBench(ctx)
	m := baseP99.FindSubmatch(out)
	if err != nil || m == nil {
		return notMeasured(what, target, "go test -bench failed: "+hostproc.Tail(string(out), 1))
	}
	p99, _ := strconv.ParseFloat(string(m[1]), 64)
	return Row{What: what, Ours: fmt.Sprintf("%.2f ms", p99), Target: target, Met: met(p99 <= 100)}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

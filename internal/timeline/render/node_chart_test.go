package render_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// drainOf is a drain watch of the rollout's pods, on its clock.
func drainOf(r *rollout.Rollout) (*nodewatch.Watch, nodewatch.Verdict) {
	w := &nodewatch.Watch{Nodes: []string{"n1"}, T0: r.T0, Start: r.Start, End: r.End, Ended: "empty", Workloads: []*rollout.Rollout{r}}
	return w, nodewatch.ComputeWith(w, timeline.Options{})
}

// The chart has one row per workload, its pods laid over each other on
// the drain's axis, then its Services' ready lines (the rollout chart's).
func TestNodeChartOneRowPerWorkload(t *testing.T) {
	w, v := drainOf(rollouttest.Rollout(t))
	var b bytes.Buffer
	if err := render.WriteNodeChart(&b, w, v); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "shop/Deployment/web ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 1 || strings.Count(rows[0], "X") != 2 || !strings.Contains(rows[0], "~") || !strings.Contains(b.String(), "ready web") {
		t.Errorf("chart:\n%s\nwant one row for the workload with both pods' exits and its Service's ready line", b.String())
	}
	b.Reset()
	if err := render.WriteNodeMermaid(&b, w, v); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "gantt\n    title Drain of node(s) n1\n") || strings.Count(b.String(), "    section shop/Deployment/web web-") != 2 {
		t.Errorf("mermaid:\n%s", b.String())
	}
}

// Every name from the cluster reaches the terminal escaped, in the
// chart, the table, the verdict and the Mermaid chart (where ':', '#' and
// ';' would also end or comment a task name).
func TestNodeRenderersEscapeHostileNames(t *testing.T) {
	r := rollouttest.Rollout(t)
	r.Workload.Name, r.Workload.Namespace = "web\x1b[2J;evil", "shop\u202e"
	r.Pods[0].Pod = "web-2\x1b]0;title\x07:x#y"
	r.Capacity[0].Service = "web\x1b[31m"
	w, v := drainOf(r)
	w.Nodes = []string{"n1\x1b[K"}
	var b bytes.Buffer
	for _, write := range []func() error{
		func() error { return render.WriteNodeChart(&b, w, v) },
		func() error { return render.WriteNodeTable(&b, v, 0) },
		func() error { return render.WriteNodeVerdict(&b, w, v) },
		func() error { return render.WriteNodeMermaid(&b, w, v) },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	out := b.String()
	for _, r := range strings.ReplaceAll(out, "\n", "") {
		if termsafe.Unsafe(r) {
			t.Fatalf("unsafe rune %q reached the output:\n%s", r, out)
		}
	}
	if !strings.Contains(out, `web\x1b[2J`) || !strings.Contains(out, `section shop\u202e/Deployment/web\x1b[2J,evil web-2\x1b]0,title\a x y`) {
		t.Errorf("names not shown escaped:\n%s", out)
	}
}

// The table names a workload as the drain's preflight table printed above
// it does: its namespace in a column of its own, then Kind/name.
func TestNodeTableNamesWorkloadsAsThePreflight(t *testing.T) {
	_, v := drainOf(rollouttest.Rollout(t))
	var b bytes.Buffer
	if err := render.WriteNodeTable(&b, v, 0); err != nil {
		t.Fatal(err)
	}
	var header, row []string
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(l, "│") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "│"), "│")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil {
			header = cells
		} else if row == nil {
			row = cells
		}
	}
	if len(header) < 2 || header[0] != "NAMESPACE" || header[1] != "WORKLOAD" || len(row) < 2 || row[0] != "shop" || row[1] != "Deployment/web" {
		t.Errorf("table:\n%s\nwant NAMESPACE shop, WORKLOAD Deployment/web", b.String())
	}
	if strings.Contains(b.String(), "shop/deployment/web") {
		t.Errorf("table still writes shop/deployment/web:\n%s", b.String())
	}
}

// On a terminal too narrow for the table's columns (they would wrap
// inside their words, NAMESP/ACE), each workload is a short paragraph:
// its name, nodes and verdict, then its counts, no line wider than the
// terminal; a terminal wide enough keeps the table.
func TestNodeTableOnANarrowTerminal(t *testing.T) {
	_, v := drainOf(rollouttest.Rollout(t))
	var narrow, wide bytes.Buffer
	if err := render.WriteNodeTable(&narrow, v, 80); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteNodeTable(&wide, v, 400); err != nil {
		t.Fatal(err)
	}
	out := narrow.String()
	if strings.Contains(out, "│") || !strings.Contains(out, "shop/Deployment/web on ") || !strings.Contains(out, "window too short") {
		t.Errorf("80 columns:\n%s\nwant a paragraph for shop/Deployment/web, no table", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %q is %d columns wide, want at most 80", l, n)
		}
	}
	if !strings.Contains(wide.String(), "│ NAMESPACE") {
		t.Errorf("400 columns:\n%s\nwant the table", wide.String())
	}
}

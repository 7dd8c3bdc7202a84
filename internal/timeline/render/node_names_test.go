package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
)

// Outside its table, the node watch names a workload one way, as the
// audit's findings and the drain's warnings do: shop/Deployment/web in the
// chart's row, the --wide lines, the Mermaid sections, the verdict's
// findings and -o json's workload, never kubectl's shop/deployment/web.
func TestNodeWatchNamesAWorkloadOneWay(t *testing.T) {
	w, v := drainOf(rollouttest.Rollout(t))
	r := w.Workloads[0]
	tl := r.Pods[1]
	outputs := map[string]func(*bytes.Buffer) error{
		"chart":   func(b *bytes.Buffer) error { return render.WriteNodeChart(b, w, v) },
		"mermaid": func(b *bytes.Buffer) error { return render.WriteNodeMermaid(b, w, v) },
		"verdict": func(b *bytes.Buffer) error { return render.WriteNodeVerdict(b, w, v) },
		"--wide line": func(b *bytes.Buffer) error {
			render.NodeLinePrinter(b, render.NodeLines{Wide: true}).PodEvent(w, "n1", r, tl, tl.Events[0])
			return nil
		},
		"-o json line": func(b *bytes.Buffer) error {
			render.NodeJSONPrinter(b).PodEvent(w, "n1", r, tl, tl.Events[0])
			return nil
		},
	}
	for name, write := range outputs {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "shop/Deployment/web") || strings.Contains(b.String(), "shop/deployment/web") {
			t.Errorf("%s names the workload otherwise than shop/Deployment/web:\n%s", name, b.String())
		}
	}
}

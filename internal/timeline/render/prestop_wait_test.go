package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// While a preStop of known length runs, watch pod says what it waits
// for, right after the Killing line: not silent until SIGTERM; a pod
// without preStop gets no such line.
func TestPodLinesSayThePreStopWait(t *testing.T) {
	for _, hook := range []bool{true, false} {
		tl := timelinetest.Terminate(t, timeline.NewRecorder, 30, hook, 5, []string{"web"}, 6000, 0, nil).TL
		var b bytes.Buffer
		pr := render.PodLinePrinter(&b, false)
		for _, e := range tl.Events {
			pr.Event(tl, e)
		}
		lines := strings.Split(b.String(), "\n")
		wait := -1
		for i, l := range lines {
			if strings.Contains(l, "preStop 5 s of container app: SIGTERM expected at +5020 ms") {
				wait = i
			}
		}
		switch {
		case hook && (wait < 1 || !strings.Contains(lines[wait-1], "Killing")):
			t.Errorf("no wait line right after Killing:\n%s", b.String())
		case !hook && strings.Contains(b.String(), "SIGTERM expected"):
			t.Errorf("a wait line without preStop:\n%s", b.String())
		}
	}
}

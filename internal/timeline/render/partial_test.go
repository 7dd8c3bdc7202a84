package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// A watch cut while the race was decided never prints SAFE.
func TestVerdictHeadlineOnAPartialTimeline(t *testing.T) {
	tl := terminate(t, 30, true, 6, []string{"web"}, 7000, 0, nil)
	tl.Gaps = append(tl.Gaps, timeline.Gap{Stream: timeline.StreamEvents, From: timelinetest.At(10), To: timelinetest.At(300)})
	var b bytes.Buffer
	if err := render.WriteVerdict(&b, tl, timeline.ComputeWith(tl, timeline.Options{})); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "CANNOT TELL: a watch was cut or stalled while the race was decided") || strings.Contains(out, "SAFE") {
		t.Errorf("verdict:\n%s", out)
	}
}

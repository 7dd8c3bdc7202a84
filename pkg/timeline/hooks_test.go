package timeline_test

import (
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// The verdict tests of this package print through the renderers, which
// import this package: they reach them through these hooks.
func init() {
	timeline.WriteVerdictForTest = render.WriteVerdict
	timeline.WriteGapLineForTest = render.WriteGapLine
}

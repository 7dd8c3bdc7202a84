package render_test

import (
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// terminate is timelinetest.Terminate on the timeline's Recorder.
func terminate(t *testing.T, grace int64, hook bool, hookSeconds int64, services []string, exitMs int64, code int32, extra func(r *timeline.Recorder)) *timeline.Timeline {
	t.Helper()
	return timelinetest.Terminate(t, timeline.NewRecorder, grace, hook, hookSeconds, services, exitMs, code, extra).TL
}

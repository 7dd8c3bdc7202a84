package timeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
)

// The objects the tests build come from internal/timelinetest, shared with
// the rollout watch's and the renderers' tests.
var (
	base             = timelinetest.Base
	at               = timelinetest.At
	testPod          = timelinetest.Pod
	sleepHook        = timelinetest.SleepHook
	deleting         = timelinetest.Deleting
	exited           = timelinetest.Exited
	boolp            = timelinetest.Bool
	slice            = timelinetest.Slice
	lonelySlice      = timelinetest.LonelySlice
	readySlice       = timelinetest.ReadySlice
	terminatingSlice = timelinetest.TerminatingSlice
	kubeEvent        = timelinetest.KubeEvent
)

const podUID = timelinetest.PodUID

func hasFinding(v Verdict, sub string) bool {
	return slices.ContainsFunc(v.Findings, func(f string) bool { return strings.Contains(f, sub) })
}

// terminate is timelinetest.Terminate on this package's Recorder.
func terminate(t *testing.T, grace int64, hook bool, hookSeconds int64, services []string, exitMs int64, code int32, extra func(r *Recorder)) *Timeline {
	t.Helper()
	return timelinetest.Terminate(t, NewRecorder, grace, hook, hookSeconds, services, exitMs, code, extra).TL
}

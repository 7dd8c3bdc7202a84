package nodewatch

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// raced is a pod with a 1 s preStop whose endpoint left its ready sets
// only at +2500 ms, 1490 ms after SIGTERM: a race.
func raced(t *testing.T) *timeline.Timeline {
	pod := timelinetest.Pod(30, timelinetest.SleepHook(1))
	r := timeline.NewRecorder(pod, []string{"web"}, timelinetest.At(-100))
	r.Handle(timelinetest.Watched(timelinetest.At(-50), watch.Added, timelinetest.ReadySlice("web-abc", "web")))
	r.MarkT0(timelinetest.At(0), timeline.T0DeleteSent, "DELETE sent")
	del := timelinetest.Deleting(pod, timelinetest.At(0))
	r.Handle(timelinetest.Watched(timelinetest.At(5), watch.Modified, del))
	r.Handle(timelinetest.Watched(timelinetest.At(10), watch.Added, timelinetest.KubeEvent("k", "Normal", "Killing", "Stopping container app", timelinetest.At(0))))
	r.Handle(timelinetest.Watched(timelinetest.At(2500), watch.Modified, timelinetest.TerminatingSlice("web-abc", "web")))
	r.Handle(timelinetest.Watched(timelinetest.At(3000), watch.Modified, timelinetest.Exited(del, 0, timelinetest.At(3000))))
	r.Handle(timelinetest.Watched(timelinetest.At(3020), watch.Deleted, timelinetest.Exited(del, 0, timelinetest.At(3000))))
	return r.TL
}

// A pod told to stop 3 s after its endpoint left, 2 s short of
// --propagation, had a window too short; it did not race. Only the pod
// told to stop before its endpoint left raced, in the counts and the
// words of the verdict.
func TestNodeVerdictTellsARaceFromAWindowTooShort(t *testing.T) {
	short := timelinetest.Terminate(t, timeline.NewRecorder, 30, true, 3, []string{"api"}, 4000, 0, nil).TL
	w := drainedOf(namedPod{"api", short}, namedPod{"web", raced(t)})
	v := ComputeWith(w, timeline.Options{})
	if !v.Risk || v.Terminated != 2 || v.Raced != 1 || v.WindowTooShort != 1 {
		t.Fatalf("risk %v, %d terminated, %d raced, %d too short: %q", v.Risk, v.Terminated, v.Raced, v.WindowTooShort, v.Findings)
	}
	got := v.Findings[0]
	for _, want := range []string{"shop/Deployment/api (1 with a window too short, up to 1980 ms short of --propagation, pod web-1)", "shop/Deployment/web (1 raced their endpoints)"} {
		if !strings.Contains(got, want) {
			t.Errorf("first finding %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "api (1 raced") {
		t.Errorf("first finding %q calls the short window a race", got)
	}
}

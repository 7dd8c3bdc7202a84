package timeline_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// An app with a 5 s sleep preStop and a sidecar "proxy" with a 2 s sleep
// preStop of its own, deleted under watch on the real node: the kubelet
// runs each container's hook at once and signals each when its own hook
// ends. Each container's estimated SIGTERM must agree with its own log
// (no earlier than the request plus its delay, no later than eventLead
// after Killing plus it), and its exit, as reported, must come after the
// process logged its exit, with finishedAt the second it ended in
// (runRealScenario's checkReportedTimes, for every container).
func TestRealNodeContainersStopTimes(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	spec := withSidecar(realPod(realnode.PodOpts{PreStop: sleepHook(5)}), false)
	spec.Containers[1].Lifecycle = &corev1.Lifecycle{PreStop: sleepHook(2)}
	r := runRealScenario(t, env, realScenario{name: t.Name(), pods: twoOf(spec),
		check: func(t *testing.T, r run, sigterm map[string]int64) {
			v := r.summary.Verdict
			if len(v.Containers) != 2 {
				t.Fatalf("containers in the verdict: %+v", v.Containers)
			}
			for _, cs := range v.Containers {
				real, logged := sigterm[cs.Name]
				if !logged || cs.SigtermMs == nil || cs.PreStopDelayMs == nil || cs.KillingMs == nil {
					t.Errorf("container %s: SIGTERM logged %v, estimate %v, delay %v, Killing %v", cs.Name, logged, cs.SigtermMs, cs.PreStopDelayMs, cs.KillingMs)
					continue
				}
				t.Logf("container %s: SIGTERM estimated %+d ms, its own log %+d ms (off by %+d ms)", cs.Name, *cs.SigtermMs, real, *cs.SigtermMs-real)
				if real < *cs.PreStopDelayMs || real > *cs.KillingMs+*cs.PreStopDelayMs+50 {
					t.Errorf("container %s logged SIGTERM at %+d ms, outside %+d..%+d ms (the request or Killing at %+d ms plus preStop %d ms)", cs.Name, real, *cs.PreStopDelayMs, *cs.KillingMs+*cs.PreStopDelayMs+50, *cs.KillingMs, *cs.PreStopDelayMs)
				}
			}
		}})
	if t.Failed() {
		return
	}
	for _, cs := range r.summary.Verdict.Containers {
		if cs.Exit == nil {
			t.Errorf("container %s: no exit reported", cs.Name)
		}
	}
}

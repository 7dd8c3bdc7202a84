package timeline_test

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// verdictFacts are the parts of a verdict that the simulated kubelet
// (kwok's Stages, internal/localcluster/stages) must give as the real one
// does: whether it is a risk, and what the risk rests on. Times differ by
// design (the Stages add 1 s of simulated shutdown) and are not compared.
type verdictFacts struct {
	Risk, PreStopFailed, PreStopAbandoned, Sigkilled bool
	PreStopDelayMs                                   int64
}

func factsOf(v timeline.Verdict) verdictFacts {
	f := verdictFacts{Risk: v.Risk, PreStopFailed: v.PreStopFailed, PreStopAbandoned: v.PreStopAbandoned, PreStopDelayMs: v.PreStopDelayMs}
	for _, x := range v.Exits {
		f.Sigkilled = f.Sigkilled || x.Code == 137
	}
	return f
}

// TestSimulationAgreesWithTheRealKubelet holds the simulation to the real
// kubelet: the same scenario on a kwok node and on the real node gives
// the same verdict. Scenarios the Stages cannot imitate are not here
// (docs/real-node.md, "What the simulation cannot imitate"): a sidecar's
// preStop running at the start of termination, and the time a failing
// hook takes to fail.
func TestSimulationAgreesWithTheRealKubelet(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	for _, c := range []struct {
		name string
		sim  podOpts
		real realnode.PodOpts
	}{
		{"no preStop", podOpts{grace: 30}, realnode.PodOpts{}},
		{"sleep preStop 5 s", podOpts{grace: 30, preStop: 5}, realnode.PodOpts{PreStop: sleepHook(5)}},
		{"exec sleep 5 in a shell image", podOpts{grace: 30, preStop: 5, execSleep: true}, realnode.PodOpts{Shell: true, PreStop: execSleepHook(5)}},
		{"SIGTERM ignored until SIGKILL", podOpts{grace: 3, exitAfter: "10s"}, realnode.PodOpts{Grace: 3, SigtermAction: "ignore"}},
		{"exec sleep in an image without sleep", podOpts{grace: 30, preStop: 5, execSleep: true, preStopBad: true}, realnode.PodOpts{PreStop: execSleepHook(5)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			simNS, node := env.Namespace(t), env.Node(t)
			createServedPods(t, env, simNS, node, c.sim)
			stdout, stderr, code := kubectl(t, env, watchJSON(simNS, "web-0", "--delete")...)
			simRun := parseRun(t, stdout, stderr, code)

			realNS := env.Namespace(t)
			spec := realnode.PodSpec(c.real)
			setUpReal(t, env, realNS, twoOf(spec), 0, t.TempDir())
			stdout, stderr, code = kubectl(t, env, watchJSON(realNS, "web-0", "--delete")...)
			realRun := parseRun(t, stdout, stderr, code)

			simF, realF := factsOf(simRun.summary.Verdict), factsOf(realRun.summary.Verdict)
			if simF != realF || simRun.code != realRun.code {
				t.Errorf("kwok: exit %d %+v\n%s\nreal kubelet: exit %d %+v\n%s", simRun.code, simF, strings.Join(simRun.summary.Verdict.Findings, "\n"),
					realRun.code, realF, strings.Join(realRun.summary.Verdict.Findings, "\n"))
			}
		})
	}
}

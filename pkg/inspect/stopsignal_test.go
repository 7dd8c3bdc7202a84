package inspect

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestStopSignal(t *testing.T) {
	sig := func(s corev1.Signal) deployOpt {
		return container(func(c *corev1.Container) { c.Lifecycle.StopSignal = ptr.To(s) })
	}
	runCases(t, "stop-signal", []checkCase{
		{"SIGUSR1 needs the alpha gate", objs(deploy("web", sig("SIGUSR1"))), 1, "needs the alpha feature gate ContainerStopSignals"},
		{"SIGKILL behind a Service", objs(deploy("web", sig("SIGKILL")), web), 1, "SIGKILL behind a Service kills in-flight requests"},
		{"no stop signal", objs(deploy("web"), web), 0, ""},
	})
	if got := runWith("stop-signal", Version{1, 32}, DefaultOptions(), deploy("web", sig("SIGQUIT"))); len(got) != 1 || got[0].Message == "" {
		t.Errorf("1.32: %+v", got)
	}
	inv := &Inventory{Live: true}
	inv.Add(deploy("web", sig("SIGKILL")), nil)
	inv.Add(web, nil)
	found := 0
	for _, f := range Audit(inv, DefaultOptions()).Findings {
		if f.Check == "stop-signal" {
			found++
		}
	}
	if found != 1 {
		t.Errorf("live SIGKILL behind a Service: %d findings, want 1", found)
	}
}

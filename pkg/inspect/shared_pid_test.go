package inspect

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
)

func TestPreStopSignalsPause(t *testing.T) {
	shared := func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Template.Spec.ShareProcessNamespace = ptr.To(true)
		return d
	}
	runCases(t, "prestop-signals-pause", []checkCase{
		{"kill 1 in a shared namespace ends every container", objs(shared(deploy("web", preStop(execHook("sh", "-c", "kill 1; sleep 5"))))), 1, "ends pause, and the kernel then kills every process of every container"},
		{"kill -QUIT 1 in a shared namespace does nothing", objs(shared(deploy("web", preStop(execHook("/bin/sh", "-c", "sleep 1; kill -QUIT 1"))))), 1, "does nothing: pause handles only SIGTERM and SIGINT"},
		{"kill -9 1 does nothing either", objs(shared(deploy("web", preStop(execHook("kill", "-9", "1"))))), 1, "(SIGKILL included)"},
		{"kill 1 in a namespace of its own signals the app", objs(deploy("web", preStop(execHook("sh", "-c", "kill 1")))), 0, ""},
		{"a sleep in a shared namespace", objs(shared(deploy("web", preStop(sleepHook(5))))), 0, ""},
	})
	got := run("prestop-signals-pause", shared(deploy("web", preStop(execHook("sh", "-c", "kill -HUP 1")))))
	if len(got) != 1 || got[0].Severity != SeverityWarning {
		t.Errorf("kill -HUP 1: want one warning, got %+v", got)
	}
}

// The other checks read a hook's `kill -SIG 1` in a shared namespace as
// the pause process reads it: a signal pause ignores stops no container,
// so a sidecar with such a hook is not "stopped by its own hook"; it gets
// SIGTERM when its hook returns.
func TestChecksReadKillOfPauseAsPauseDoes(t *testing.T) {
	shared := func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Template.Spec.ShareProcessNamespace = ptr.To(true)
		return d
	}
	app15 := preStop(execHook("sleep", "15"))
	runCases(t, "sidecar-stops-first", []checkCase{
		{"kill -QUIT 1 in a shared namespace stops nothing", objs(shared(deploy("web", app15, grace(40), withContainer("cache", execHook("kill", "-QUIT", "1"), false))), web), 1,
			"container cache has a 0 s preStop, shorter than app's 15 s, so it gets SIGTERM while app still waits"},
		{"kill -QUIT 1 in a namespace of its own stops the cache", objs(deploy("web", app15, grace(40), withContainer("cache", execHook("kill", "-QUIT", "1"), false)), web), 1,
			`container cache has a preStop that stops it at once ("kill -QUIT 1"), before app's 15 s, so it is stopped by its own hook`},
	})
}

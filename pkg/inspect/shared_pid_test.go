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

package inspect

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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

// A pkill or killall in one container's hook, in a pod that shares its
// process namespace, reaches the processes of that name in every
// container: named where another container's command is that name, said
// it cannot be told where no command shows it, nothing where only its
// own container's command matches or the namespace is not shared.
func TestPreStopKillsOtherContainer(t *testing.T) {
	shared := func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Template.Spec.ShareProcessNamespace = ptr.To(true)
		return d
	}
	nginx := container(func(c *corev1.Container) { c.Command = []string{"/usr/sbin/nginx", "-g", "daemon off;"} })
	fpm := func(c *corev1.Container) { c.Command = []string{"php-fpm8.2", "-F"} }
	runCases(t, "prestop-kills-other-container", []checkCase{
		{"a sidecar's pkill stops the app's nginx", objs(shared(deploy("web", nginx, withContainer("reloader", execHook("sh", "-c", "sleep 2; pkill -QUIT nginx"), false)))), 1,
			`preStop's "pkill -QUIT nginx", 2 s into the termination, signals the processes of every container that match nginx: container(s) app run a command of that name`},
		{"the backend's killall of its own php-fpm", objs(shared(deploy("web", nginx, withContainer("php", execHook("sh", "-c", "sleep 1; killall -QUIT php-fpm8.2"), false, fpm)))), 0, ""},
		{"a name no command shows", objs(shared(deploy("web", nginx, withContainer("worker", execHook("pkill", "-f", "queue-runner"), false)))), 1,
			"which containers' processes those are cannot be told from the spec"},
		{"not shared: its own container only", objs(deploy("web", nginx, withContainer("reloader", execHook("sh", "-c", "pkill -QUIT nginx"), false))), 0, ""},
	})
	if got := run("prestop-kills-other-container", shared(deploy("web", nginx, withContainer("worker", execHook("pkill", "queue-runner"), false)))); len(got) != 1 || got[0].Severity != SeverityInfo {
		t.Errorf("a name no command shows: want one info finding, got %+v", got)
	}
}

package prestop

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSignalToPID1(t *testing.T) {
	for _, c := range []struct {
		cmd       []string
		stmt, sig string
	}{
		{[]string{"sh", "-c", "kill 1"}, "kill 1", "TERM"},
		{[]string{"/bin/sh", "-c", "sleep 1; kill -QUIT 1"}, "kill -QUIT 1", "QUIT"},
		{[]string{"kill", "-s", "SIGHUP", "1"}, "kill -s SIGHUP 1", "HUP"},
		{[]string{"sh", "-c", "kill -15 1 && sleep 5"}, "kill -15 1", "TERM"},
		{[]string{"busybox", "kill", "-9", "1"}, "kill -9 1", "KILL"},
		{[]string{"sh", "-c", "kill -TERM 12"}, "", ""},
		{[]string{"sh", "-c", "pkill nginx"}, "", ""},
		{[]string{"sh", "-c", "echo kill 1"}, "", ""},
		{[]string{"sleep", "1"}, "", ""},
		{nil, "", ""},
	} {
		stmt, sig := SignalToPID1(c.cmd)
		if stmt != c.stmt || sig != c.sig {
			t.Errorf("SignalToPID1(%q) = %q, %q; want %q, %q", c.cmd, stmt, sig, c.stmt, c.sig)
		}
	}
}

func TestDurationInPod(t *testing.T) {
	hook := func(cmd ...string) corev1.Container {
		return corev1.Container{Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}}}
	}
	for _, c := range []struct {
		name   string
		ctr    corev1.Container
		shared bool
		secs   int64
		known  bool
		how    string
	}{
		{"QUIT to pause does nothing: the sleep counts", hook("sh", "-c", "kill -QUIT 1; sleep 5"), true, 5, true, HowExecScript},
		{"QUIT to the app in its own namespace stops it first", hook("sh", "-c", "kill -QUIT 1; sleep 5"), false, 0, true, HowExecStopsFirst},
		{"TERM to pause ends the pod first", hook("sh", "-c", "kill 1; sleep 5"), true, 0, true, HowExecStopsFirst},
		{"a bare kill -HUP 1 returns at once", hook("kill", "-HUP", "1"), true, 0, true, HowExecScript},
		{"a sleep alone", hook("sleep", "3"), true, 3, true, HowExecSleep},
	} {
		s, known, how := DurationInPod(c.ctr, c.shared)
		if s != c.secs || known != c.known || how != c.how {
			t.Errorf("%s: got %d %v %s, want %d %v %s", c.name, s, known, how, c.secs, c.known, c.how)
		}
	}
}

package timeline

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestPreStopOf(t *testing.T) {
	exec := func(cmd ...string) *corev1.LifecycleHandler {
		return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}
	}
	cases := []struct {
		name string
		hook *corev1.LifecycleHandler
		want PreStop
	}{
		{"none", nil, PreStop{Known: true}},
		{"native sleep", sleepHook(7), PreStop{Has: true, Known: true, Delay: 7 * time.Second}},
		{"exec sleep", exec("sleep", "5"), PreStop{Has: true, Known: true, Delay: 5 * time.Second}},
		{"exec /bin/sleep 2.5 (rounded up)", exec("/bin/sleep", "2.5"), PreStop{Has: true, Known: true, Delay: 3 * time.Second}},
		{"sh -c sleep", exec("/bin/sh", "-c", "sleep 10 && nginx -s quit"), PreStop{Has: true, Known: true, Delay: 10 * time.Second}},
		// decocms/studio#4608: the server is gone at the quit, before the sleep.
		{"quit then sleep", exec("/bin/sh", "-c", "nginx -s quit; sleep 15"), PreStop{Has: true, Known: true}},
		{"sleep, kill 1, sleep", exec("/bin/sh", "-c", "sleep 3; kill 1; sleep 15"), PreStop{Has: true, Known: true, Delay: 3 * time.Second}},
		{"sleep 1m", exec("sleep", "1m"), PreStop{Has: true, Known: true, Delay: time.Minute}},
		{"script", exec("/bin/sh", "-c", "/drain.sh"), PreStop{Has: true}},
		{"tcpSocket is not run", &corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{}}, PreStop{Known: true}},
		{"httpGet", &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/quit"}}, PreStop{Has: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctr := corev1.Container{Name: "app"}
			if c.hook != nil {
				ctr.Lifecycle = &corev1.Lifecycle{PreStop: c.hook}
			}
			if got := preStopOf(&ctr, false); got != c.want {
				t.Errorf("preStopOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

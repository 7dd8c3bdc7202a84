package prestop

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func execHook(cmd ...string) *corev1.Lifecycle {
	return &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		name      string
		lifecycle *corev1.Lifecycle
		seconds   int64
		known     bool
		how       string
	}{
		{"no lifecycle", nil, 0, true, HowNone},
		{"postStart only", &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}, 0, true, HowNone},
		{"native sleep", &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 15}}}, 15, true, HowNativeSleep},
		{"native sleep zero", &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 0}}}, 0, true, HowNativeSleep},
		{"sleep N", execHook("sleep", "10"), 10, true, HowExecSleep},
		{"sleep Ns", execHook("sleep", "10s"), 10, true, HowExecSleep},
		{"sleep minutes", execHook("sleep", "1m"), 60, true, HowExecSleep},
		{"sleep fraction rounds up", execHook("sleep", "2.5"), 3, true, HowExecSleep},
		{"sleep adds arguments", execHook("sleep", "1m", "5s"), 65, true, HowExecSleep},
		{"/bin/sleep", execHook("/bin/sleep", "20"), 20, true, HowExecSleep},
		{"busybox sleep", execHook("busybox", "sleep", "7"), 7, true, HowExecSleep},
		{"/bin/busybox sleep", execHook("/bin/busybox", "sleep", "7s"), 7, true, HowExecSleep},
		{"sh -c sleep", execHook("sh", "-c", "sleep 5"), 5, true, HowExecSleep},
		{"/bin/sh -c sleep and more", execHook("/bin/sh", "-c", "sleep 5 && nginx -s quit"), 5, true, HowExecScript},
		{"sh -c more then sleep", execHook("sh", "-c", "echo bye; /app/drain && sleep 12"), 12, true, HowExecScript},
		{"kill 1 then sleep", execHook("sh", "-c", "echo bye; kill -TERM 1 && sleep 12"), 0, true, HowExecStopsFirst},
		// decocms/studio#4608
		{"nginx quit then sleep", execHook("/bin/sh", "-c", "nginx -s quit; sleep 15"), 0, true, HowExecStopsFirst},
		// the Kubernetes documentation's lifecycle example
		{"docs quit then wait", execHook("/bin/sh", "-c", "nginx -s quit; while killall -0 nginx; do sleep 1; done"), 0, true, HowExecStopsFirst},
		{"sleep, quit, sleep", execHook("sh", "-c", "sleep 5 && /usr/sbin/nginx -s stop && sleep 10"), 5, true, HowExecStopsFirst},
		{"quit on a newline", execHook("sh", "-c", "apachectl -k graceful-stop\nsleep 20"), 0, true, HowExecStopsFirst},
		{"apachectl graceful-stop", execHook("bash", "-c", "apachectl graceful-stop && sleep 20"), 0, true, HowExecStopsFirst},
		{"haproxy -sf", execHook("sh", "-c", "haproxy -f /etc/haproxy.cfg -sf $(cat /run/haproxy.pid); sleep 10"), 0, true, HowExecStopsFirst},
		{"curl quitquitquit", execHook("sh", "-c", "curl -XPOST http://127.0.0.1:15000/quitquitquit; sleep 10"), 0, true, HowExecStopsFirst},
		{"wget shutdown", execHook("sh", "-c", "wget -qO- localhost:8080/admin/shutdown || true; sleep 10"), 0, true, HowExecStopsFirst},
		{"pkill", execHook("sh", "-c", "pkill -QUIT php-fpm; sleep 10"), 0, true, HowExecStopsFirst},
		{"quit after the sleep", execHook("sh", "-c", "sleep 10; nginx -s quit"), 10, true, HowExecScript},
		{"healthcheck fail then sleep", execHook("sh", "-c", "curl -XPOST localhost:15000/healthcheck/fail; sleep 10"), 10, true, HowExecScript},
		{"echo naming a quit", execHook("sh", "-c", "echo nginx -s quit; sleep 10"), 10, true, HowExecScript},
		{"bash -ec sleep", execHook("bash", "-ec", "sleep 3; sleep 4"), 7, true, HowExecSleep},
		{"sh -c without sleep", execHook("sh", "-c", "/app/drain --now"), 0, false, howExec},
		{"quit alone: the server stops at once", execHook("sh", "-c", "nginx -s quit"), 0, true, HowExecStopsFirst},
		{"quit without a shell", execHook("nginx", "-s", "quit"), 0, true, HowExecStopsFirst},
		// deckhouse/deckhouse#22068: waits for the app, as long as it takes.
		{"sleep in a loop", execHook("sh", "-c", "while curl -fs localhost:8080/busy; do sleep 1; done; curl -XPOST localhost:15020/quitquitquit"), 0, false, howExec},
		{"sleep, then quit: the right order", execHook("sh", "-c", "/bin/sleep 1; kill -QUIT 1"), 1, true, HowExecScript},
		{"sleep infinity", execHook("sleep", "infinity"), 0, false, howExec},
		{"sleep without argument", execHook("sleep"), 0, false, howExec},
		{"custom binary", execHook("/wait-shutdown"), 0, false, howExec},
		{"empty exec", execHook(), 0, false, howExec},
		{"httpGet", &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/quit", Port: intstr.FromInt32(8080)}}}, 0, false, howHTTPGet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, known, how := Duration(corev1.Container{Name: "app", Lifecycle: tt.lifecycle})
			if s != tt.seconds || known != tt.known || how != tt.how {
				t.Errorf("Duration = (%d, %v, %q), want (%d, %v, %q)", s, known, how, tt.seconds, tt.known, tt.how)
			}
		})
	}
}

func TestIsShellOrSleep(t *testing.T) {
	for cmd, want := range map[string]bool{"sleep": true, "/bin/sh": true, "/busybox/busybox": true, "/wait-shutdown": false, "": false} {
		var c []string
		if cmd != "" {
			c = []string{cmd, "5"}
		}
		if got := IsShellOrSleep(c); got != want {
			t.Errorf("IsShellOrSleep(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestStopsServerSignalZero(t *testing.T) {
	for cmd, want := range map[string]bool{
		"kill 1": true, "kill -TERM 1": true, "kill -s QUIT 1": true, "kill -15 1": true, "killall nginx": true,
		"kill -0 1": false, "killall -0 nginx": false, "kill": false,
	} {
		if got := stopsServer(strings.Fields(cmd)); got != want {
			t.Errorf("stopsServer(%q) = %v, want %v", cmd, got, want)
		}
	}
}

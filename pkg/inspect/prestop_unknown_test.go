package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestPreStopDelayUnknown: hooks whose length the spec does not tell are
// said to be unknown behind a Service, never passed as enough; a tcpSocket
// hook, which kubelet does not run, is a warning.
func TestPreStopDelayUnknown(t *testing.T) {
	httpGet := &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/drain", Port: intstr.FromInt32(8080)}}
	tcp := &corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}
	runCases(t, "prestop-delay-unknown", []checkCase{
		{"exec binary", objs(web, deploy("web", preStop(execHook("/app/drain", "--wait")))), 1, `runs exec ["/app/drain", "--wait"]: its delay is unknown`},
		{"exec script without sleep", objs(web, deploy("web", preStop(execHook("sh", "-c", "/app/drain --now")))), 1, "cannot be told from the spec"},
		{"script sleeping below the floor", objs(web, deploy("web", preStop(execHook("sh", "-c", "/app/drain; sleep 2")))), 1, "sleeps 2 s among other commands"},
		{"script sleeping the floor or more", objs(web, deploy("web", preStop(execHook("sh", "-c", "/app/drain; sleep 5")))), 0, ""},
		{"httpGet", objs(web, deploy("web", preStop(httpGet))), 1, `httpGet ":8080/drain"`},
		{"tcpSocket", objs(web, deploy("web", preStop(tcp))), 1, "kubelet does not run"},
		{"plain sleep is known", objs(web, deploy("web", preStop(execHook("sleep", "1")))), 0, ""},
		{"native sleep is known", objs(web, deploy("web")), 0, ""},
		{"no Service", objs(deploy("web", preStop(httpGet))), 0, ""},
	})
	if got := run("prestop-delay-unknown", web, deploy("web", preStop(tcp))); len(got) != 1 || got[0].Severity != SeverityWarning {
		t.Errorf("tcpSocket hook: want one warning, got %+v", got)
	}
	if got := run("prestop-delay-unknown", web, deploy("web", preStop(httpGet))); len(got) != 1 || got[0].Severity != SeverityInfo {
		t.Errorf("httpGet hook: want one info, got %+v", got)
	}
}

// TestPreStopDelayUnknownQuotes: the command is quoted with its control
// characters escaped and cut to a bound, whatever the manifest holds.
func TestPreStopDelayUnknownQuotes(t *testing.T) {
	hostile := "drain\x1b[31m\n" + strings.Repeat("x", 500)
	got := run("prestop-delay-unknown", web, deploy("web", preStop(execHook("/bin/"+hostile))))
	if len(got) != 1 {
		t.Fatalf("want one finding, got %+v", got)
	}
	m := got[0].Message
	if strings.ContainsAny(m, "\x1b\n") || !strings.Contains(m, `\x1b[31m\n`) || !strings.Contains(m, "…") || len(m) > 600 {
		t.Errorf("command not quoted, escaped and cut: %q", m)
	}
}

// TestPreStopFloorNeverPassesUnknown: for every --prestop-floor, a hook of
// unknown length gets prestop-delay-unknown and no other preStop check
// says it is fine or too short by a number it does not have.
func TestPreStopFloorNeverPassesUnknown(t *testing.T) {
	for _, floor := range []int64{0, 5, 30} {
		opts := DefaultOptions()
		opts.PreStopFloorSeconds = floor
		d := deploy("web", preStop(execHook("/app/drain")))
		if got := runWith("prestop-delay-unknown", Version{1, 37}, opts, web, d); len(got) != 1 {
			t.Errorf("floor %d: want prestop-delay-unknown, got %+v", floor, got)
		}
		if got := runWith("prestop-too-short", Version{1, 37}, opts, web, d); len(got) != 0 {
			t.Errorf("floor %d: prestop-too-short judged a hook of unknown length: %+v", floor, got)
		}
	}
}

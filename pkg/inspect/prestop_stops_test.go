package inspect

import "testing"

func TestPreStopStopsServerFirst(t *testing.T) {
	runCases(t, "prestop-stops-server-first", []checkCase{
		// decocms/studio#4608
		{"nginx quit then sleep", objs(deploy("web", preStop(execHook("/bin/sh", "-c", "nginx -s quit; sleep 15"))), web), 1, `it stops the server at the start of the hook ("nginx -s quit")`},
		// api-platform/api-platform#1997: Caddy's admin API stops the server now.
		{"curl to Caddy's /stop, no shell", objs(deploy("web", preStop(execHook("curl", "-XPOST", "http://localhost:2019/stop"))), web), 1, `("curl -XPOST http://localhost:2019/stop")`},
		{"nginx quit alone", objs(deploy("web", preStop(execHook("sh", "-c", "nginx -s quit"))), web), 1, "delay counted: 0 s"},
		// deckhouse/deckhouse#22068: Envoy's inbound listeners drained at once.
		{"Envoy drain_listeners, then wait", objs(deploy("web", preStop(execHook("sh", "-c", "curl -X POST 'localhost:15000/drain_listeners?inboundonly'; while [ -e /tmp/busy ]; do sleep 1; done"))), web), 1, "drain_listeners?inboundonly"},
		{"Envoy drain_listeners with its graceful period", objs(deploy("web", preStop(execHook("sh", "-c", "curl -X POST 'localhost:15000/drain_listeners?inboundonly&graceful'; sleep 5"))), web), 0, ""},
		// Envoy's /healthcheck/fail only fails its health checks: it still serves.
		{"Envoy healthcheck/fail, then wait", objs(deploy("web", preStop(execHook("sh", "-c", "curl -X POST localhost:15000/healthcheck/fail; sleep 10"))), web), 0, ""},
		{"php-fpm: sleep, then quit", objs(deploy("web", preStop(execHook("sh", "-c", "/bin/sleep 1; kill -QUIT 1"))), web), 0, ""},
		{"kill 1 on its own line", objs(deploy("web", preStop(execHook("sh", "-c", "kill -TERM 1\nsleep 15"))), web), 1, "delay counted: 0 s"},
		{"curl quitquitquit && sleep", objs(deploy("web", preStop(execHook("sh", "-c", "sleep 2 && curl -s -XPOST localhost:15000/quitquitquit && sleep 15"))), web), 1, "delay counted: 2 s"},
		{"sleep then quit", objs(deploy("web", preStop(execHook("sh", "-c", "sleep 15; nginx -s quit"))), web), 0, ""},
		{"not behind a Service", objs(deploy("web", preStop(execHook("sh", "-c", "nginx -s quit; sleep 15")))), 0, ""},
	})
	// The sleep after the stop is no delay: missing-prestop stays quiet
	// (a hook exists), prestop-delay-unknown too, and the floor check sees 0 s
	// through this check alone.
	d := deploy("web", preStop(execHook("/bin/sh", "-c", "nginx -s quit; sleep 15")))
	for _, other := range []string{"missing-prestop", "prestop-delay-unknown", "prestop-too-short"} {
		if got := run(other, d, web); len(got) != 0 {
			t.Errorf("%s also reports it: %+v", other, got)
		}
	}
}

package localcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// kwokJQ runs a kwok Stage expression on obj the way kwok v0.8.0 does
// (pkg/utils/expression: gojq over the object's JSON form; an error yields
// no value). It returns the single value, or nil.
func kwokJQ(t *testing.T, expr string, obj any) any {
	t.Helper()
	q, err := gojq.Parse(expr)
	if err != nil {
		t.Fatalf("parse %s: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var in any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	var out []any
	iter := code.RunWithContext(context.Background(), in)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			t.Fatalf("%s: %v", expr, err)
		}
		out = append(out, v)
	}
	if len(out) != 1 {
		t.Fatalf("%s gave %d values: %v", expr, len(out), out)
	}
	return out[0]
}

func hookPod(hooks ...*corev1.LifecycleHandler) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	for i, h := range hooks {
		c := corev1.Container{Name: fmt.Sprintf("c%d", i), Image: "x"}
		if h != nil {
			c.Lifecycle = &corev1.Lifecycle{PreStop: h}
		}
		p.Spec.Containers = append(p.Spec.Containers, c)
	}
	return p
}

func execH(cmd ...string) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}
}

// preStopForms are the preStop hooks whose delay pkg/prestop reads, and
// neighbours it refuses; the Stages must delay each by the same number of
// seconds (a hook of unknown duration counts as 0 s in the simulation).
func preStopForms() map[string]*corev1.LifecycleHandler {
	forms := map[string]*corev1.LifecycleHandler{
		"no hook":                     nil,
		"native sleep":                {Sleep: &corev1.SleepAction{Seconds: 15}},
		"native sleep 0":              {Sleep: &corev1.SleepAction{Seconds: 0}},
		"httpGet":                     {HTTPGet: &corev1.HTTPGetAction{Path: "/quit", Port: intstr.FromInt32(8080)}},
		"tcpSocket":                   {TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
		"sleep 1m":                    execH("sleep", "1m"),
		"sleep 1.5":                   execH("sleep", "1.5"),
		"sleep 2s":                    execH("sleep", "2s"),
		"sleep .5":                    execH("sleep", ".5"),
		"sleep 5.":                    execH("sleep", "5."),
		"sleep 1h":                    execH("sleep", "1h"),
		"sleep 1d":                    execH("sleep", "1d"),
		"sleep 1m 5s":                 execH("sleep", "1m", "5s"),
		"sleep 0.1 0.2":               execH("sleep", "0.1", "0.2"),
		"sleep quoted":                execH("sleep", `"3"`),
		"sleep 500ms":                 execH("sleep", "500ms"),
		"sleep 1e3":                   execH("sleep", "1e3"),
		"sleep infinity":              execH("sleep", "infinity"),
		"sleep -5":                    execH("sleep", "-5"),
		"sleep alone":                 execH("sleep"),
		"/bin/sleep 20":               execH("/bin/sleep", "20"),
		"busybox sleep 7":             execH("busybox", "sleep", "7"),
		"/bin/busybox sleep 7s":       execH("/bin/busybox", "sleep", "7s"),
		"busybox alone":               execH("busybox"),
		"busybox sh -c":               execH("busybox", "sh", "-c", "sleep 4"),
		"sh -c sleep":                 execH("sh", "-c", "sleep 5"),
		"sh -c quoted":                execH("sh", "-c", "sleep '5'"),
		"sh -c && sleep":              execH("/bin/sh", "-c", "nginx -s quit && sleep 5"),
		"sh -c sleep then more":       execH("sh", "-c", "sleep 5 && nginx -s quit"),
		"sh -c ; and &&":              execH("sh", "-c", "echo bye; kill -TERM 1 && sleep 12"),
		"bash -ec two sleeps":         execH("bash", "-ec", "sleep 3; sleep 4"),
		"sh -c newlines":              execH("sh", "-c", "sleep 2\nsleep 1.5\necho done"),
		"sh -c || sleep":              execH("sh", "-c", "false || sleep 6"),
		"sh -c busybox sleep":         execH("ash", "-c", "busybox sleep 3s && true"),
		"sh -c sleep 1m":              execH("dash", "-c", "sleep 1m"),
		"sh -c tabs":                  execH("zsh", "-c", "sleep\t9"),
		"sh -c bad sleep":             execH("sh", "-c", "sleep 5 && sleep forever"),
		"sh -c no sleep":              execH("sh", "-c", "nginx -s quit"),
		"sh -c sleep, stop, sleep":    execH("sh", "-c", "sleep 3; /usr/sbin/nginx -s quit; sleep 15"),
		"sh -c pipe then sleep":       execH("sh", "-c", "echo bye | logger && sleep 4"),
		"sh -c loop of sleeps":        execH("sh", "-c", "while true; do sleep 2; done"),
		"sh -c sleep, then a loop":    execH("sh", "-c", "sleep 3; until [ -f /tmp/done ]; do sleep 1; done"),
		"curl Caddy's stop, no shell": execH("curl", "-XPOST", "http://localhost:2019/stop"),
		"sh -c comment":               execH("sh", "-c", "sleep 2\n# sleep 9"),
		"sh -c kill -0 then sleep":    execH("sh", "-c", "kill -0 1 && sleep 6"),
		"sh -c curl quit then sleep":  execH("sh", "-c", "curl -s http://127.0.0.1:15000/quitquitquit; sleep 10"),
		"sh without -c":               execH("sh", "/stop.sh"),
		"sh -c without script":        execH("sh", "-c"),
		"sh -xc":                      execH("sh", "-xc", "sleep 8"),
		"custom binary":               execH("/wait-shutdown"),
		"custom binary with sleep":    execH("/app", "sleep", "5"),
		"empty exec":                  execH(),
	}
	for _, n := range []string{"0", "1", "3", "10", "0.25", "2.5", "59.9", "120"} {
		for _, u := range []string{"", "s", "m", "h"} {
			forms["sleep "+n+u] = execH("sleep", n+u)
			forms["sh -c sleep "+n+u] = execH("sh", "-c", "true && sleep "+n+u)
		}
	}
	return forms
}

// TestStagesReadPreStopAsPkgPrestop proves that the termination Stages
// delay a pod's exit by what pkg/prestop reads from its preStop hook, plus
// the simulated 1 s of shutdown, on every form.
func TestStagesReadPreStopAsPkgPrestop(t *testing.T) {
	for name, h := range preStopForms() {
		pod := hookPod(h)
		d, known, _ := prestop.Duration(pod.Spec.Containers[0])
		if !known {
			d = 0
		}
		got := kwokJQ(t, exitSecondsJQ, pod)
		if n, ok := number(got); !ok || n != float64(d+1) {
			t.Errorf("%s: Stage exit after %v s, pkg/prestop reads %d s (+1 s): want %d", name, got, d, d+1)
		}
	}
}

// The longest container's preStop decides; the annotations override it.
func TestStagesExitSeconds(t *testing.T) {
	pod := hookPod(execH("sleep", "3"), &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 9}}, nil)
	for _, tc := range []struct {
		annotations map[string]string
		want        float64
	}{
		{nil, 10},
		{map[string]string{sim.ExitAfter: "20s"}, 20},
		{map[string]string{sim.ExitAfter: "1m30s"}, 90},
		{map[string]string{sim.ExitAfter: "500ms"}, 0.5},
		{map[string]string{sim.PreStopFails: "true"}, 1},
	} {
		pod.Annotations = tc.annotations
		if got, _ := number(kwokJQ(t, exitSecondsJQ, pod)); got != tc.want {
			t.Errorf("%v: exit after %v s, want %v", tc.annotations, got, tc.want)
		}
	}
}

// The expressions as they reach kwok (substituted into single-quoted YAML)
// parse and compute the delay in milliseconds.
func TestStagesYAMLExitDelay(t *testing.T) {
	out, err := StagesYAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(out, "\n---\n") {
		var s struct {
			Metadata struct{ Name string }
			Spec     struct {
				Delay struct {
					DurationFrom struct{ JQ struct{ Expression string } }
				}
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &s); err != nil {
			t.Fatal(err)
		}
		if s.Metadata.Name != "sim-pod-exit" {
			continue
		}
		pod := hookPod(execH("sh", "-c", `sleep "2.5"`))
		if got := kwokJQ(t, s.Spec.Delay.DurationFrom.JQ.Expression, pod); got != "4000ms" {
			t.Errorf("sim-pod-exit delay = %v, want 4000ms", got)
		}
		return
	}
	t.Fatal("stage sim-pod-exit not found")
}

// simNames returns every annotation of the simulation, scripts and markers.
func simNames() []string {
	return []string{sim.ExitAfter, sim.PreStopFails, sim.Ready, sim.Killing, sim.PreStopFailed}
}

// Every sim.graceful.test annotation the Stages read or write is named in
// package sim.
func TestStagesUseSimNames(t *testing.T) {
	out, err := StagesYAML()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range simNames() {
		known[n] = true
	}
	for _, f := range strings.FieldsFunc(out, func(r rune) bool { return strings.ContainsRune(` "'[]:`+"\n", r) }) {
		if strings.HasPrefix(f, sim.Prefix) && !known[f] {
			t.Errorf("stages use %s, which package sim does not name", f)
		}
	}
	for _, n := range simNames() {
		if !strings.Contains(out, n) {
			t.Errorf("package sim names %s, which no stage uses", n)
		}
	}
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// TestRealNodeContainerdRestartedMidDrain drains real-node-0 and, while its
// pod sleeps in a 5 s preStop, kills real-node-0's containerd and starts it
// again 2 s later (the containers and their shims go on running). The
// drain must finish or name the pods still terminating, and never say
// "drained" while a container still runs: each evicted pod's app must
// have logged its own exit before the drain ended.
func TestRealNodeContainerdRestartedMidDrain(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	e2e.RepeatRealFault(t, func(t *testing.T) string {
		defer e2e.GuardUntouched(t)()
		defer uncordonNow(t, env)
		t.Cleanup(func() { env.RestoreRealNodePart(t, realnode.NodeName, realnode.PartContainerd) })
		ns := env.Namespace(t)
		logs := t.TempDir()
		app := createRealApp(t, env, ns, "web", 2, hardenedOpts, withExitLog(logs))
		waitSpread(t, env, ns, 2, app)
		onNode := podsOn(t, env, ns, realnode.NodeName)
		d := env.StartKubectl(t, 3*time.Minute, "graceful", "drain", "node", realnode.NodeName, "--ignore-daemonsets", "--timeout", "2m")
		if !terminatingOn(env, ns, realnode.NodeName, 2*time.Minute) {
			d.Interrupt()
			res := d.Wait()
			t.Fatalf("no pod of %s terminating on %s within 2 minutes of the drain's start; the drain (interrupted, exit %d) said:\n%s", ns, realnode.NodeName, res.ExitCode, res.Stdout+res.Stderr)
		}
		time.Sleep(time.Second)
		if err := realnode.Restart(realnode.NodeName, realnode.PartContainerd, 2*time.Second); err != nil {
			t.Fatalf("restarting containerd: %v", err)
		}
		res := d.Wait()
		ended := time.Now()
		out := res.Stdout + res.Stderr
		t.Logf("drain exit %d:\n%s", res.ExitCode, out)
		drained := res.ExitCode == 0 && strings.Contains(out, "drained")
		for _, pod := range onNode {
			exit, ok := ownExit(t, filepath.Join(logs, pod+".log"))
			t.Logf("pod %s: the app's own exit logged %v, %s before the drain ended", pod, ok, ended.Sub(exit).Round(time.Millisecond))
			switch {
			case drained && !ok:
				t.Errorf("the drain said drained, but pod %s's app never logged its exit", pod)
			case drained && exit.After(ended):
				t.Errorf("the drain said drained at %s, but pod %s's app exited only at %s", ended.Format(time.StampMilli), pod, exit.Format(time.StampMilli))
			case !drained && !strings.Contains(out, pod):
				t.Errorf("not drained (exit %d), and the summary does not name pod %s", res.ExitCode, pod)
			}
		}
		return fmt.Sprintf("exit %d, drained %v", res.ExitCode, drained)
	})
}

// withExitLog mounts dir (on the host) at /log in the app container and
// points its SIGNAL_LOG at /log/POD.log, so that each pod's own SIGTERM and
// exit times outlive it.
func withExitLog(dir string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		create := corev1.HostPathDirectoryOrCreate
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "log", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: &create}}})
		c := &s.Containers[0]
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "log", MountPath: "/log"})
		c.Env = append(c.Env,
			corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			corev1.EnvVar{Name: "SIGNAL_LOG", Value: "/log/$(POD_NAME).log"})
	}
}

var exitLine = regexp.MustCompile(`exit -?\d+ at (\S+)`)

// ownExit returns the time the app logged its exit in file.
func ownExit(t *testing.T, file string) (time.Time, bool) {
	t.Helper()
	return ownLogTime(file, exitLine)
}

// ownLogTime returns the time in the first line of file that line matches
// (its first group, RFC 3339 with nanoseconds).
func ownLogTime(file string, line *regexp.Regexp) (time.Time, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return time.Time{}, false
	}
	m := line.FindSubmatch(b)
	if m == nil {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, string(m[1]))
	return at, err == nil
}

// podsOn returns the names of ns's pods on node.
func podsOn(t *testing.T, env *e2e.Env, ns, node string) []string {
	t.Helper()
	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pods.Items {
		if p.Spec.NodeName == node {
			out = append(out, p.Name)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no pod of %s on %s", ns, node)
	}
	return out
}

// terminatingOn waits up to limit until a pod of ns on node has a
// deletionTimestamp.
func terminatingOn(env *e2e.Env, ns, node string, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil && p.Spec.NodeName == node {
				return true
			}
		}
	}
	return false
}

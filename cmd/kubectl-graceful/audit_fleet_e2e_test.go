package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/report"
)

// fleetWorkload is a Deployment behind a Service with neither preStop nor
// readiness probe: warnings in any cluster.
const fleetWorkload = `apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, labels: {fleet-test: %[2]s}}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: app, image: nginx, ports: [{containerPort: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: %[1]s}
spec:
  selector: {app: %[1]s}
  ports: [{port: 80}]
`

// applyFleetWorkload creates the workload called name, labelled id, in a
// fresh namespace of env's cluster.
func applyFleetWorkload(t *testing.T, env *e2e.Env, name, id string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(fleetWorkload, name, id)), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := env.Kubectl(t, "apply", "-n", env.Namespace(t), "-f", file); res.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", res.Stderr)
	}
}

// fleetKubeconfig writes one kubeconfig holding the current contexts of
// the given clusters, plus a context "dead" whose server is a closed
// loopback port (a cluster that is down), and returns its path and the
// contexts' names.
func fleetKubeconfig(t *testing.T, envs ...*e2e.Env) (string, []string) {
	t.Helper()
	merged := clientcmdapi.NewConfig()
	var names []string
	for _, env := range envs {
		c, err := clientcmd.LoadFromFile(env.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		ctx := c.Contexts[c.CurrentContext]
		merged.Contexts[c.CurrentContext] = ctx
		merged.Clusters[ctx.Cluster] = c.Clusters[ctx.Cluster]
		merged.AuthInfos[ctx.AuthInfo] = c.AuthInfos[ctx.AuthInfo]
		names = append(names, c.CurrentContext)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	merged.Clusters["dead"] = &clientcmdapi.Cluster{Server: "https://" + closed, InsecureSkipTLSVerify: true}
	merged.Contexts["dead"] = &clientcmdapi.Context{Cluster: "dead", AuthInfo: merged.Contexts[names[0]].AuthInfo}
	merged.CurrentContext = names[0]
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*merged, path); err != nil {
		t.Fatal(err)
	}
	return path, names
}

// TestAuditFleet audits two local clusters in one run: each cluster's
// findings labelled with its context; a cluster that is down gets its
// line and the others are still reported; only when none could be audited
// is the exit status 1.
func TestAuditFleet(t *testing.T) {
	a, b := e2e.Cluster(t), e2e.SecondCluster(t)
	id := rand.String(6)
	applyFleetWorkload(t, a, "alpha", id)
	applyFleetWorkload(t, b, "beta", id)
	kubeconfig, names := fleetKubeconfig(t, a, b)
	ctxA, ctxB := names[0], names[1]
	run := func(args ...string) e2e.Result {
		return e2e.RunKubectl(t, []string{"KUBECONFIG=" + kubeconfig}, append([]string{"graceful", "audit", "-A", "-l", "fleet-test=" + id, "--fail-on", "warning"}, args...)...)
	}
	fleet := func(res e2e.Result) *report.Fleet {
		t.Helper()
		var f report.Fleet
		if err := json.Unmarshal([]byte(res.Stdout), &f); err != nil {
			t.Fatalf("not the fleet JSON report: %v\n%s\nstderr: %s", err, res.Stdout, res.Stderr)
		}
		return &f
	}
	found := func(f *report.Fleet) map[string]bool {
		m := map[string]bool{}
		for _, x := range f.Findings {
			m[x.Cluster+" "+x.Check+" "+x.Object.Name] = true
		}
		return m
	}

	t.Run("two clusters", func(t *testing.T) {
		res := run("--contexts", ctxA+","+ctxB, "-o", "json")
		if res.ExitCode != 2 || res.Stderr != "" {
			t.Fatalf("exit %d, stderr %q: want 2 (warnings) and nothing on stderr", res.ExitCode, res.Stderr)
		}
		got := found(fleet(res))
		for _, want := range []string{ctxA + " missing-prestop alpha", ctxB + " missing-prestop beta"} {
			if !got[want] {
				t.Errorf("no finding %q in %v", want, got)
			}
		}
		if got[ctxA+" missing-prestop beta"] || got[ctxB+" missing-prestop alpha"] {
			t.Errorf("a finding is labelled with the wrong cluster: %v", got)
		}
		table := run("--contexts", ctxA+","+ctxB)
		lines := strings.Split(table.Stdout, "\n")
		if !strings.HasPrefix(strings.TrimSpace(lines[0]), "CLUSTER") || !strings.Contains(table.Stdout, ctxA) || !strings.Contains(table.Stdout, ctxB) ||
			!strings.Contains(table.Stdout, "2 of 2 clusters audited") {
			t.Errorf("table lacks the CLUSTER column, a cluster or the count:\n%s", table.Stdout)
		}
	})

	t.Run("one cluster down", func(t *testing.T) {
		res := run("--all-contexts", "-o", "json")
		stderr := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if res.ExitCode != 2 || len(stderr) != 1 || !strings.Contains(stderr[0], `context "dead" not audited`) {
			t.Fatalf("exit %d, stderr %q: want 2 and one line for the cluster that is down", res.ExitCode, res.Stderr)
		}
		f := fleet(res)
		got := found(f)
		if !got[ctxA+" missing-prestop alpha"] || !got[ctxB+" missing-prestop beta"] {
			t.Errorf("the clusters that are up must still be reported: %v", got)
		}
		if f.Audited() != 2 || len(f.Clusters) != 3 {
			t.Errorf("clusters %+v: want 2 of 3 audited", f.Clusters)
		}
		for _, c := range f.Clusters {
			if (c.Cluster == "dead") != (c.Error != "") {
				t.Errorf("cluster %s: error %q", c.Cluster, c.Error)
			}
		}
	})

	t.Run("every cluster down", func(t *testing.T) {
		res := run("--contexts", "dead")
		if res.ExitCode != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, `context "dead" not audited`) {
			t.Errorf("exit %d, stdout %q, stderr %q: want 1, no report, the cluster's line", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
}

// TestAuditFleetBlackHole: a cluster whose address drops packets is listed
// as unreachable after the fleet audit's own bound (10 s, not the client's
// 30 s dial timeout) while the other is reported; --request-timeout, when
// given, is the bound instead.
func TestAuditFleetBlackHole(t *testing.T) {
	a := e2e.Cluster(t)
	id := rand.String(6)
	applyFleetWorkload(t, a, "alpha", id)
	kubeconfig, names := fleetKubeconfig(t, a)
	c, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c.Clusters["hole"] = &clientcmdapi.Cluster{Server: "https://" + e2e.BlackHole(t), InsecureSkipTLSVerify: true}
	c.Contexts["hole"] = &clientcmdapi.Context{Cluster: "hole", AuthInfo: c.Contexts[names[0]].AuthInfo}
	if err := clientcmd.WriteToFile(*c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
		// within is how long the run may take: the bound, plus room for a
		// loaded machine, and less than the client's 30 s dial timeout.
		within time.Duration
	}{
		{"default bound", nil, "no answer within 10s", 25 * time.Second},
		{"--request-timeout", []string{"--request-timeout", "2s"}, "", 9 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + kubeconfig}, append([]string{"graceful", "audit", "-A", "-l", "fleet-test=" + id,
				"--fail-on", "warning", "--contexts", "hole," + names[0], "-o", "json"}, tc.flags...)...)
			took := time.Since(start)
			stderr := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if res.ExitCode != 2 || len(stderr) != 1 || !strings.Contains(stderr[0], `context "hole" not audited: cannot reach`) || !strings.Contains(stderr[0], tc.want) {
				t.Fatalf("exit %d, stderr %q: want 2 and one line saying hole could not be reached (%q)", res.ExitCode, res.Stderr, tc.want)
			}
			if took > tc.within {
				t.Errorf("took %s, want under %s", took.Round(time.Millisecond), tc.within)
			}
			var f report.Fleet
			if err := json.Unmarshal([]byte(res.Stdout), &f); err != nil || f.Audited() != 1 {
				t.Fatalf("want a report of the one cluster audited (%v):\n%s", err, res.Stdout)
			}
			reported := false
			for _, x := range f.Findings {
				reported = reported || (x.Cluster == names[0] && x.Object.Name == "alpha")
			}
			if !reported {
				t.Errorf("no finding of %s's alpha in %+v", names[0], f.Findings)
			}
		})
	}
}

// TestAuditFleetBadInput: one line, exit 1.
func TestAuditFleetBadInput(t *testing.T) {
	env := e2e.Cluster(t)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("apiVersion: v1\nkind: Config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown context", []string{"--contexts", "nope"}, `no context "nope"`},
		{"kubeconfig without contexts", []string{"--all-contexts", "--kubeconfig", empty}, "no contexts"},
		{"with -f", []string{"--all-contexts", "-f", empty}, "not with -f/-k"},
		{"with --context", []string{"--contexts", "a", "--context", "b"}, "--context"},
		{"parallel 0", []string{"--all-contexts", "--parallel", "0"}, "--parallel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Kubectl(t, append([]string{"graceful", "audit"}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if res.ExitCode != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 1 and one line with %q", res.ExitCode, res.Stderr, tc.want)
			}
		})
	}
}

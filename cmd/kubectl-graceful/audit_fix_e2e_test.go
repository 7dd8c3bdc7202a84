package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// mechanical are the checks --fix fixes by itself (docs/fix.md).
var mechanical = map[string]bool{
	"missing-prestop": true, "prestop-too-short": true, "prefer-native-sleep": true, "prestop-sleep-binary-missing": true,
	"prestop-exceeds-grace": true, "shutdown-budget-exceeds-grace": true, "grace-period-zero": true,
	"pdb-blocks-eviction": true, "pdb-unhealthy-eviction-policy": true, "pdb-missing": true,
}

// TestAuditFixDryRun runs the built binary through kubectl on copies of
// examples/ and of every project of ../shared/corpus: `--fix`, then an
// audit reports none of the mechanical findings it did not list as
// manual, a second `--fix --diff` is empty, and every document the fix
// changed or added is accepted by the local cluster's API server
// (`kubectl apply --dry-run=server`: validation, defaulting and admission
// of the real kube-apiserver).
func TestAuditFixDryRun(t *testing.T) {
	env := e2e.Cluster(t)
	sets := map[string]string{"examples": filepath.Join("..", "..", "examples")}
	if root, err := e2e.RepoRoot(); err == nil {
		corpus := filepath.Join(root, "..", "shared", "corpus")
		if entries, err := os.ReadDir(corpus); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					sets[e.Name()] = filepath.Join(corpus, e.Name())
				}
			}
		} else {
			t.Logf("corpus not found at %s (%v): only examples/ is checked", corpus, err)
		}
	}
	run := func(args ...string) e2e.Result {
		return e2e.RunKubectl(t, []string{"KUBECONFIG=", "HOME=" + t.TempDir()}, args...)
	}
	for name, src := range sets {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			before := readTreeR(t, dir)
			r0 := auditJSON(t, run, 0, "-f", dir, "-R", "--fail-on", "none")
			res := run("graceful", "audit", "-f", dir, "-R", "--fix")
			if res.ExitCode != 0 {
				t.Fatalf("--fix: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			manual := res.Stdout
			r1 := auditJSON(t, run, 0, "-f", dir, "-R", "--fail-on", "none")
			key := func(f inspect.Finding) string { return fmt.Sprintf("%s %s %s", f.Check, f.Object, f.Container) }
			left := map[string]bool{}
			for _, f := range r1.Findings {
				left[key(f)] = true
			}
			fixed := 0
			for _, f := range r0.Findings {
				listed := strings.Contains(manual, fmt.Sprintf("manual  %s %s:", f.Object, f.Check))
				switch {
				case !mechanical[f.Check] || listed:
				case left[key(f)]:
					t.Errorf("still reported after --fix, not listed as manual: %s", key(f))
				default:
					fixed++
				}
			}
			t.Logf("%d findings fixed", fixed)
			if name == "examples" && fixed < 8 {
				t.Errorf("only %d findings of examples/ fixed", fixed)
			}
			if again := run("graceful", "audit", "-f", dir, "-R", "--fix", "--diff"); again.ExitCode != 0 || again.Stdout != "" {
				t.Errorf("second --fix --diff: exit %d\n%s", again.ExitCode, again.Stdout)
			}
			ns := env.Namespace(t)
			checked := 0
			for file, after := range readTreeR(t, dir) {
				for _, doc := range changedDocs(t, before[file], after) {
					checked += dryRun(t, env, ns, doc)
				}
			}
			t.Logf("%d changed or added documents accepted by --dry-run=server", checked)
			if name == "examples" && checked < 7 {
				t.Errorf("only %d documents of examples/ checked: the fix changed less than expected", checked)
			}
		})
	}
}

// readTreeR reads every .yaml file under dir, by path.
func readTreeR(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedDocs returns the documents of after that are not, byte for byte,
// documents of before.
func changedDocs(t *testing.T, before, after string) []string {
	t.Helper()
	old := map[string]bool{}
	for _, d := range splitDocs(before) {
		old[d] = true
	}
	var out []string
	for _, d := range splitDocs(after) {
		if !old[d] && strings.TrimSpace(d) != "" {
			out = append(out, d)
		}
	}
	return out
}

func splitDocs(s string) []string {
	var out []string
	cur := []string{}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "---") {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	return append(out, strings.Join(cur, "\n"))
}

// dryRun applies doc to namespace ns with --dry-run=server and returns 1,
// or 0 when the cluster has no such kind (a custom resource).
func dryRun(t *testing.T, env *e2e.Env, ns, doc string) int {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("changed document does not parse: %v\n%s", err, doc)
	}
	if obj == nil {
		return 0
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "namespace")
	}
	b, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "doc.yaml")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res := env.Kubectl(t, "apply", "--dry-run=server", "-n", ns, "-f", f)
	if res.ExitCode != 0 {
		if strings.Contains(res.Stderr, "no matches for kind") || strings.Contains(res.Stderr, "ensure CRDs are installed") {
			t.Logf("skipped: the cluster lacks %v %v", obj["apiVersion"], obj["kind"])
			return 0
		}
		t.Errorf("kubectl apply --dry-run=server refused a fixed document: %s\n%s", res.Stderr, doc)
		return 0
	}
	return 1
}

// TestAuditLivePlanPatch: on a live object, -o yaml gives every fixable
// finding of a workload the same one kubectl patch, and that patch,
// applied by the real API server, leaves the object as --fix leaves the
// manifest: native sleep 40 s, grace period 60 s, and an audit with none
// of those findings.
func TestAuditLivePlanPatch(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	src := strings.ReplaceAll(mustRead(t, filepath.Join("..", "..", "examples", "broken-prestop-exceeds-grace.yaml")), "namespace: graceful-demo", "namespace: "+ns)
	file := filepath.Join(t.TempDir(), "slow.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := env.Kubectl(t, "apply", "-f", file); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	res := env.Kubectl(t, "graceful", "audit", "-n", ns, "-o", "yaml", "--fail-on", "none")
	if res.ExitCode != 0 {
		t.Fatalf("live audit: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var r inspect.Report
	if err := yaml.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatal(err)
	}
	patches := map[string]bool{}
	for _, f := range r.Findings {
		if f.Object.Kind == "Deployment" && (f.Check == "prestop-exceeds-grace" || f.Check == "prefer-native-sleep") {
			patches[f.Fix] = true
		}
	}
	if len(patches) != 1 {
		t.Fatalf("want one combined patch for the Deployment's findings, got %d: %v", len(patches), patches)
	}
	var patch string
	for p := range patches {
		patch = p
	}
	prefix := "kubectl patch deployment slow-prestop -n " + ns + " -p '"
	if !strings.HasPrefix(patch, prefix) || !strings.HasSuffix(patch, "'") {
		t.Fatalf("not a kubectl patch of the Deployment: %s", patch)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(patch, prefix), "'")
	if res := env.Kubectl(t, "patch", "deployment", "slow-prestop", "-n", ns, "-p", body); res.ExitCode != 0 {
		t.Fatalf("the printed patch was refused: %s", res.Stderr)
	}
	got := env.Kubectl(t, "get", "deployment", "slow-prestop", "-n", ns, "-o",
		"jsonpath={.spec.template.spec.terminationGracePeriodSeconds} {.spec.template.spec.containers[0].lifecycle.preStop}")
	if want := `60 {"sleep":{"seconds":40}}`; got.Stdout != want {
		t.Errorf("after the patch: %q, want %q (what --fix writes into the manifest)", got.Stdout, want)
	}
	after := env.Kubectl(t, "graceful", "audit", "-n", ns, "-o", "json", "--fail-on", "none")
	for _, check := range []string{"prestop-exceeds-grace", "prefer-native-sleep"} {
		if strings.Contains(after.Stdout, `"check": "`+check+`"`) {
			t.Errorf("%s still reported after the patch:\n%s", check, after.Stdout)
		}
	}
}

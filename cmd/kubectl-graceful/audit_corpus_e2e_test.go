package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// corpusDir returns ../shared/corpus beside the repository, or skips.
func corpusDir(t *testing.T) string {
	t.Helper()
	root, err := e2e.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s: %v", dir, err)
	}
	return dir
}

// appliedKinds are the namespaced kinds the corpus test applies: what the
// audit reads, plus what their pods need to be created (service accounts,
// config). Cluster-scoped objects (ClusterRoles, webhooks, IngressClasses,
// Namespaces) are left out so the shared cluster is not changed for other
// tests; custom resources are left out because the cluster lacks their CRDs.
var appliedKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true, "Pod": true,
	"Job": true, "CronJob": true, "Service": true, "PodDisruptionBudget": true,
	"HorizontalPodAutoscaler": true, "Ingress": true, "ServiceAccount": true, "ConfigMap": true, "Secret": true,
}

type doc struct {
	raw  []byte
	obj  map[string]any
	kind string
}

// readDocs splits every YAML file under dir into documents.
func readDocs(t *testing.T, dir string) []doc {
	t.Helper()
	var out []doc
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			b, err := r.Read()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			var obj map[string]any
			if err := yaml.Unmarshal(b, &obj); err != nil {
				return err
			}
			if obj == nil {
				continue
			}
			kind, _ := obj["kind"].(string)
			out = append(out, doc{raw: b, obj: obj, kind: kind})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAuditCorpus audits the real-world manifests under ../shared/corpus
// from files and after applying them to the local cluster, and asserts that
// both modes report the same findings; then it checks what an operator
// expects for ingress-nginx (it has a preStop hook) and microservices-demo
// (no preStop, 5 s grace period).
func TestAuditCorpus(t *testing.T) {
	corpus := corpusDir(t)
	env := e2e.Cluster(t)
	projects, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		t.Run(p.Name(), func(t *testing.T) {
			ns := env.Namespace(t)
			kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
			var applied [][]byte
			for _, d := range readDocs(t, filepath.Join(corpus, p.Name())) {
				if !appliedKinds[d.kind] {
					t.Logf("not applied: %s (cluster-scoped, custom or not read by the audit)", d.kind)
					continue
				}
				if md, ok := d.obj["metadata"].(map[string]any); ok {
					delete(md, "namespace")
				}
				b, err := yaml.Marshal(d.obj)
				if err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(t.TempDir(), "doc.yaml")
				if err := os.WriteFile(f, b, 0o644); err != nil {
					t.Fatal(err)
				}
				res := kubectl("apply", "-n", ns, "-f", f)
				if res.ExitCode != 0 {
					if strings.Contains(res.Stderr, "no matches for kind") || strings.Contains(res.Stderr, "ensure CRDs are installed") {
						t.Logf("skipped: the cluster lacks %s %s", d.obj["apiVersion"], d.kind)
						continue
					}
					t.Fatalf("apply %s: %s", d.kind, res.Stderr)
				}
				applied = append(applied, b)
				if sa := serviceAccountOf(d.obj); sa != "" {
					kubectl("create", "serviceaccount", sa, "-n", ns) // may exist already
				}
			}
			file := filepath.Join(t.TempDir(), p.Name()+".yaml")
			if err := os.WriteFile(file, bytes.Join(applied, []byte("\n---\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			waitForPods(t, env, ns)
			live := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none")
			files := auditJSON(t, kubectl, 0, "-n", ns, "-f", file, "--fail-on", "none")
			if l, f := strings.Join(keys(live), "\n"), strings.Join(keys(files), "\n"); l != f {
				t.Errorf("live and manifest audits differ\nlive:\n%s\n\nmanifests:\n%s", l, f)
			}
			t.Logf("%d documents applied, %d findings in both modes", len(applied), len(keys(files)))
			if (p.Name() == "microservices-demo" || p.Name() == "ingress-nginx") && len(keys(files)) == 0 {
				t.Errorf("%s: no findings at all, the comparison proves nothing", p.Name())
			}
		})
	}
}

func serviceAccountOf(obj map[string]any) string {
	spec, _ := obj["spec"].(map[string]any)
	tpl, _ := spec["template"].(map[string]any)
	ps, _ := tpl["spec"].(map[string]any)
	sa, _ := ps["serviceAccountName"].(string)
	return sa
}

// TestAuditCorpusFindings audits the corpus files as they are (offline)
// and checks the findings an experienced operator would agree with.
func TestAuditCorpusFindings(t *testing.T) {
	corpus := corpusDir(t)
	run := func(args ...string) e2e.Result {
		return e2e.RunKubectl(t, []string{"KUBECONFIG=", "HOME=" + t.TempDir()}, args...)
	}
	nginx := auditJSON(t, run, 0, "-f", filepath.Join(corpus, "ingress-nginx"), "--fail-on", "none")
	for _, f := range nginx.Findings {
		if f.Object.Name != "ingress-nginx-controller" {
			continue
		}
		switch f.Check {
		case "missing-prestop", "prestop-exceeds-grace", "prestop-too-short", "shutdown-budget-exceeds-grace", "grace-period-long", "readiness-probe-port-unknown", "probe-port-unknown":
			t.Errorf("ingress-nginx controller has a preStop hook (/wait-shutdown), a 300 s grace period and a probe on an undeclared but valid port: %+v", f)
		}
	}
	if !has(nginx, "single-replica", "Deployment", "ingress-nginx-controller") {
		t.Errorf("ingress-nginx controller runs 1 replica behind its LoadBalancer Service: %v", keys(nginx))
	}

	demo := auditJSON(t, run, 0, "-f", filepath.Join(corpus, "microservices-demo"), "--fail-on", "none")
	served := []string{"adservice", "cartservice", "checkoutservice", "currencyservice", "emailservice", "frontend",
		"paymentservice", "productcatalogservice", "recommendationservice", "redis-cart", "shippingservice"}
	for _, name := range served {
		if !has(demo, "missing-prestop", "Deployment", name) {
			t.Errorf("microservices-demo %s: behind a Service with no preStop, missing-prestop expected", name)
		}
	}
	for _, f := range demo.Findings {
		if f.Object.Name == "loadgenerator" && f.Check == "missing-prestop" {
			t.Errorf("loadgenerator is behind no Service: %+v", f)
		}
		if f.Severity == inspect.SeverityError {
			t.Errorf("microservices-demo has no error-level problem (no preStop at all, grace 5 s): %+v", f)
		}
		if f.Check == "missing-prestop" && f.Object.Name == "emailservice" && !strings.Contains(f.Message, "grace period 5 s") {
			t.Errorf("message should give the 5 s grace period: %s", f.Message)
		}
	}

	prom := auditJSON(t, run, 0, "-f", filepath.Join(corpus, "kube-prometheus"), "--fail-on", "none")
	for _, f := range prom.Findings {
		if f.Check == "pdb-selects-nothing" {
			t.Errorf("kube-prometheus PDBs select pods the operator creates from the Prometheus/Alertmanager objects: %+v", f)
		}
	}
	argo := auditJSON(t, run, 0, "-f", filepath.Join(corpus, "argo-cd"), "--fail-on", "none")
	for _, f := range argo.Findings {
		behindService := f.Check == "missing-prestop" || f.Check == "single-replica" || f.Check == "rollout-downtime" || f.Check == "missing-readiness-probe"
		if behindService && (f.Object.Name == "argocd-application-controller" || f.Object.Name == "argocd-notifications-controller") {
			t.Errorf("Argo CD controllers are behind metrics-only Services, not serving traffic: %+v", f)
		}
	}
}

package fix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/load"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// auditText audits src as the manifest loader reads -f - (file "STDIN").
func auditText(t *testing.T, src string, v inspect.Version, opts inspect.Options) (*inspect.Inventory, *inspect.Report) {
	t.Helper()
	inv := &inspect.Inventory{Version: v}
	if err := load.Manifests(load.ManifestOptions{Filenames: []string{"-"}, Stdin: strings.NewReader(src)}, inv); err != nil {
		t.Fatalf("load: %v\n%s", err, src)
	}
	return inv, inspect.Audit(inv, opts)
}

// fixed is the result of fixing one manifest text.
type fixed struct {
	plan   *Plan
	edit   *FileEdit
	before *inspect.Report
	after  *inspect.Report
}

// fixText audits src, plans with o, edits and audits the result again.
func fixText(t *testing.T, src string, v inspect.Version, ao inspect.Options, o Options) fixed {
	t.Helper()
	inv, r := auditText(t, src, v, ao)
	o.Version = v
	p := NewPlan(inv, r.Findings, o)
	e, err := Edit("STDIN", []byte(src), p, "")
	if err != nil {
		t.Fatalf("edit: %v", err)
	}
	_, after := auditText(t, string(e.After), v, ao)
	return fixed{plan: p, edit: e, before: r, after: after}
}

// findingKey identifies a finding across audits.
func findingKey(f inspect.Finding) string {
	return fmt.Sprintf("%s %s %s", f.Check, f.Object, f.Container)
}

// assertFixedGone fails when a finding the edit claims to fix is still
// reported after it.
func assertFixedGone(t *testing.T, fx fixed) {
	t.Helper()
	left := map[string]bool{}
	for _, f := range fx.after.Findings {
		left[findingKey(f)] = true
	}
	for _, d := range fx.edit.Done {
		for _, f := range d.Fixes {
			if left[findingKey(f)] {
				t.Errorf("fixed finding still reported: %s\n%s", findingKey(f), fx.edit.After)
			}
		}
	}
}

func descriptions(p *Plan) string {
	var out []string
	for _, w := range p.Workloads {
		out = append(out, w.Object.Name+": "+w.Describe())
	}
	for _, d := range p.PDBs {
		out = append(out, d.Object.Name+": "+d.Describe())
	}
	for _, n := range p.NewPDBs {
		out = append(out, n.For.Name+": "+n.Describe())
	}
	for _, m := range p.Manual {
		out = append(out, fmt.Sprintf("manual %s %s: %s", m.Finding.Object.Name, m.Finding.Check, m.Reason))
	}
	return strings.Join(out, "\n")
}

// readExample returns an examples/ file of the repository.
func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// workload renders a Deployment (or another kind with the same shape)
// with a pod spec body, and a Service in front of it.
func workload(kind, name string, replicas int, podSpec string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: %[1]s
metadata:
  name: %[2]s
  namespace: shop
spec:
  replicas: %[3]d
  selector:
    matchLabels:
      app: %[2]s
  template:
    metadata:
      labels:
        app: %[2]s
    spec:
%[4]s---
apiVersion: v1
kind: Service
metadata:
  name: %[2]s
  namespace: shop
spec:
  selector:
    app: %[2]s
  ports:
  - port: 80
`, kind, name, replicas, indent(podSpec, 6))
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func version(t *testing.T, s string) inspect.Version {
	t.Helper()
	if s == "" {
		return inspect.Version{}
	}
	v, err := inspect.ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

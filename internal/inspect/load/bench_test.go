package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// BenchmarkManifestAudit2000 reads and audits 2,000 documents (1,000
// Deployments and the 1,000 Services in front of them) from one file: the
// manifest-mode target (at least as fast as kube-score on the
// same files).
func BenchmarkManifestAudit2000(b *testing.B) {
	file := manifest2000(b)
	b.ReportAllocs()
	for b.Loop() {
		audit2000(b, file)
	}
}

// audit2000 reads and audits the file of manifest2000.
func audit2000(b *testing.B, file string) (*inspect.Inventory, *inspect.Report) {
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: []string{file}}, inv); err != nil {
		b.Fatal(err)
	}
	r := inspect.Audit(inv, inspect.DefaultOptions())
	if r.Summary.Workloads != 1000 {
		b.Fatalf("%d workloads", r.Summary.Workloads)
	}
	return inv, r
}

// manifest2000 writes the benchmarks' input: 1,000 Deployments and the
// 1,000 Services in front of them in one file.
func manifest2000(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
spec:
  replicas: %[3]d
  selector:
    matchLabels: {app: app-%[1]d}
  template:
    metadata:
      labels: {app: app-%[1]d}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: web
        image: example/web:1
        ports: [{name: http, containerPort: 8080}]
        lifecycle:
          preStop:
            exec: {command: ["sleep", "%[4]d"]}
---
apiVersion: v1
kind: Service
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
spec:
  selector: {app: app-%[1]d}
  ports: [{port: 80, targetPort: http}]
---
`, i, i%20, 1+i%3, i%40)
	}
	file := filepath.Join(b.TempDir(), "many.yaml")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}

package inspect_test

import (
	"fmt"
	"io/fs"
	"strings"
	"testing/fstest"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Audit a set of manifest files, as `audit -f DIR` does: decode each
// document into its typed object, Add it to the Inventory with the file it
// came from, then Audit the whole and read the Report (the object
// `audit -o json` prints).
func Example() {
	files := fstest.MapFS{
		"web.yaml": {Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: web
        image: nginx:1.27
        lifecycle: {preStop: {exec: {command: [sleep, "15"]}}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`)},
		"budget.yaml": {Data: []byte(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  maxUnavailable: 0
  selector: {matchLabels: {app: web}}
`)},
	}

	inv := &inspect.Inventory{}
	decode := scheme.Codecs.UniversalDeserializer()
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(files, path)
		if err != nil {
			return err
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			obj, _, err := decode.Decode([]byte(doc), nil, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			inv.Add(obj, &inspect.Source{File: path})
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	r := inspect.Audit(inv, inspect.DefaultOptions())
	for _, f := range r.Findings {
		fmt.Printf("%s %s %s (%s)\n", f.Severity, f.Check, f.Object, f.Source.File)
	}
	fmt.Printf("%d workload(s), %d error(s), %d warning(s)\n", r.Summary.Workloads, r.Summary.Errors, r.Summary.Warnings)
	// Output:
	// error prestop-exceeds-grace shop/Deployment/web (web.yaml)
	// warning missing-readiness-probe shop/Deployment/web (web.yaml)
	// info prefer-native-sleep shop/Deployment/web (web.yaml)
	// error pdb-blocks-eviction shop/PodDisruptionBudget/web (budget.yaml)
	// info pdb-unhealthy-eviction-policy shop/PodDisruptionBudget/web (budget.yaml)
	// 1 workload(s), 2 error(s), 1 warning(s)
}

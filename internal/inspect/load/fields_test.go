package load

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// TestUnknownFields: every level the audit reads, with the closest field
// the API type has. kubernetes/ingress-gce#2222 misspelled the preStop hook.
func TestUnknownFields(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "web.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labelz: {app: web}
spec:
  replica: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSecond: 20
      containers:
      - name: web
        image: nginx
        lifecycle:
          preStopHook:
            exec: {command: [sleep, "5"]}
      initContainers:
      - name: proxy
        image: envoy
        restartPolicy: Always
        lifecycle:
          preStop:
            sleep: {second: 5}
---
apiVersion: v1
kind: List
items:
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web}
  spec:
    minAvailible: 1
    selector: {matchLabels: {app: web}}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: canary}
spec:
  strategyy: {}
  template:
    spec:
      containers:
      - name: app
        image: app
        readinessprobe: {httpGet: {port: 80}}
`)
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: []string{f}}, inv); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	lines := map[string]int{}
	for _, w := range inv.Workloads {
		for _, u := range w.UnknownFields {
			got[w.Object.Name+" "+u.Path] = u.Closest
			lines[u.Path] = u.Line
		}
	}
	for _, p := range inv.PDBs {
		for _, u := range p.UnknownFields {
			got[p.Name+" "+u.Path] = u.Closest
			lines[u.Path] = u.Line
		}
	}
	want := map[string]string{
		"web metadata.labelz": "labels",
		"web spec.replica":    "replicas",
		"web spec.template.spec.terminationGracePeriodSecond":                     "terminationGracePeriodSeconds",
		"web spec.template.spec.containers[0].lifecycle.preStopHook":              "preStop",
		"web spec.template.spec.initContainers[0].lifecycle.preStop.sleep.second": "seconds",
		"web spec.minAvailible":                                  "minAvailable",
		"canary spec.template.spec.containers[0].readinessprobe": "readinessProbe",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: closest %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("unknown fields %v, want %v (a custom resource is read through its template only)", got, want)
	}
	if lines["spec.template.spec.containers[0].lifecycle.preStopHook"] != 19 || lines["spec.minAvailible"] != 36 {
		t.Errorf("lines %v, want the fields' own (19, 48)", lines)
	}
}

// TestKnownFieldsOfEveryShape: YAML 1.1 booleans, merge keys, anchors,
// quantities, int-or-strings, unquoted dates in strings and nulls are read
// as kubectl reads them, not as unknown fields or wrong types.
func TestKnownFieldsOfEveryShape(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "ok.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  creationTimestamp: null
  annotations: {built: 2024-01-02}
spec:
  selector: {matchLabels: {app: web}}
  strategy: {rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}}
  template:
    metadata:
      labels: &l {app: web}
    spec:
      hostNetwork: yes
      containers:
      - &c
        name: web
        image: nginx
        resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {cpu: 1}}
        ports: [{containerPort: 80}]
      - <<: *c
        name: web2
status: {}
`)
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: []string{f}}, inv); err != nil {
		t.Fatal(err)
	}
	if u := inv.Workloads[0].UnknownFields; len(u) != 0 {
		t.Errorf("unknown fields %v, want none", u)
	}
}

// TestFieldTypeErrors: a value of the wrong type names the file, the
// field's line and column and its path, and the file is not read.
func TestFieldTypeErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ doc, want string }{
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: \"two\"\n", `:6:13: spec.replicas: a string "two" where the API type has an integer (int32)`},
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: a\n    env:\n    - name: PORT\n      value: 8080\n", `:9:14: spec.containers[0].env[0].value: an integer "8080" where the API type has a string`},
		{"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\nspec:\n  selector: [app]\n", `:5:13: spec.selector: a list where the API type has an object`},
	} {
		f := write(t, dir, "t.yaml", tc.doc)
		err := Manifests(ManifestOptions{Filenames: []string{f}}, &inspect.Inventory{})
		if err == nil || !strings.HasPrefix(err.Error(), f+tc.want) {
			t.Errorf("error %v, want %s%s", err, f, tc.want)
		}
	}
}

// TestParseErrorLine: an indentation error is named at its own line, not
// at the line of the block the parser was reading.
func TestParseErrorLine(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "indent.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n       ports:\n        - containerPort: 80\n")
	err := Manifests(ManifestOptions{Filenames: []string{f}}, &inspect.Inventory{})
	if err == nil || !strings.HasPrefix(err.Error(), f+":15:8: did not find expected key") {
		t.Errorf("error %v, want it at line 15, column 8", err)
	}
}

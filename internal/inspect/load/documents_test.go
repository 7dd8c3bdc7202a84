package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: a, image: x}]}
`

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// kubectl apply refuses input without objects ("no objects passed to
// apply"); so does the audit, instead of a clean report of nothing.
func TestManifestsWithoutObjectsAreAnError(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"empty.yaml": "", "comments.yaml": "# nothing\n---\n\n---\n# still nothing\n"} {
		p := write(t, dir, name, text)
		err := Manifests(ManifestOptions{Filenames: []string{p}}, &inspect.Inventory{})
		if err == nil || !strings.Contains(err.Error(), "no objects passed to audit") || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	err := Manifests(ManifestOptions{Filenames: []string{"-"}, Stdin: strings.NewReader("\n")}, &inspect.Inventory{})
	if err == nil || !strings.Contains(err.Error(), "no objects passed to audit (in stdin)") {
		t.Errorf("stdin: error %v", err)
	}
	empty := filepath.Join(dir, "emptydir")
	write(t, empty, "README.md", "not a manifest")
	err = Manifests(ManifestOptions{Filenames: []string{empty}}, &inspect.Inventory{})
	if err == nil || !strings.Contains(err.Error(), "no .json, .yaml or .yml file in") {
		t.Errorf("directory without manifests: error %v", err)
	}
}

// A key written twice keeps the last value in lenient decoders: the
// audit would read another object than the author wrote.
func TestManifestsDuplicateKeyNamesFileAndLine(t *testing.T) {
	p := write(t, t.TempDir(), "dup.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"+
		strings.Replace(deployment, "spec:\n  selector", "spec:\n  replicas: 2\n  replicas: 3\n  selector", 1))
	err := Manifests(ManifestOptions{Filenames: []string{p}}, &inspect.Inventory{})
	want := p + `:11: duplicate key "replicas" (first at line 10)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// A Secret that does not parse is skipped with a line that quotes none of
// it; a workload that does not parse stops the run.
func TestManifestsSkipUnparsableKindsNotAudited(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "app.yaml", `apiVersion: v1
kind: Secret
metadata:
  name: creds
data:
  password: aHVudGVyMg-not-base64
---
apiVersion: v1
kind: Secret
metadata:
  name: broken
stringData:
  password: "hunter2
  user: [admin
---
`+deployment)
	var lines []string
	inv := &inspect.Inventory{}
	err := Manifests(ManifestOptions{Filenames: []string{p}, Skipped: func(l string) { lines = append(lines, l) }}, inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Workloads) != 1 || inv.Objects != 2 || inv.NotAudited[inspect.NotAudited{Reason: inspect.NotAuditedUnparseable, Message: notAuditedUnparseable}] != 1 {
		t.Errorf("workloads %d, objects %d, not audited %v", len(inv.Workloads), inv.Objects, inv.NotAudited)
	}
	want := "skipped " + p + `:8: Secret "broken" does not parse and is not a kind the audit reads`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("skipped lines %q, want %q", lines, want)
	}
	for _, l := range lines {
		if strings.Contains(l, "hunter2") || strings.Contains(l, "aHVudGVy") {
			t.Errorf("a Secret's value was printed: %s", l)
		}
	}

	bad := write(t, dir, "bad.yaml", strings.Replace(deployment, "name: web", "name: [web", 1))
	err = Manifests(ManifestOptions{Filenames: []string{bad}}, &inspect.Inventory{})
	if err == nil || !strings.HasPrefix(err.Error(), bad+":4:9: ") {
		t.Errorf("a Deployment that does not parse: error %v", err)
	}
}

func TestSplitDocumentsLikeTheAPIMachineryReader(t *testing.T) {
	docs := splitDocuments("f", []byte("a: 1\n---\nb: 2\n--- # not a separator for the reader\nc: 3\n---  \n\nd: 4"))
	if len(docs) != 3 || docs[1].firstLine != 3 || docs[2].firstLine != 7 || !strings.Contains(string(docs[1].data), "c: 3") {
		for _, d := range docs {
			t.Logf("%d: %q", d.firstLine, d.data)
		}
		t.Fatalf("got %d documents", len(docs))
	}
}

func TestExpandFilenamesLikeKubectl(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", deployment)
	write(t, dir, "b.txt", "x")
	write(t, dir, "sub/c.yml", deployment)
	named := write(t, t.TempDir(), "manifest.txt", deployment)
	flat, err := expandFilenames([]string{dir, named, "-"}, false)
	if err != nil || len(flat) != 3 || !strings.HasSuffix(flat[0], "a.yaml") || flat[1] != named || flat[2] != "-" {
		t.Errorf("without -R: %v %v", flat, err)
	}
	deep, err := expandFilenames([]string{dir}, true)
	if err != nil || len(deep) != 2 || !strings.HasSuffix(deep[1], filepath.Join("sub", "c.yml")) {
		t.Errorf("with -R: %v %v", deep, err)
	}
	if _, err := expandFilenames([]string{filepath.Join(dir, "nope")}, false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing path: %v", err)
	}
}

// Built-in kinds the checks do not read are audited through their pod
// template when they have one, never skipped silently.
func TestManifestsReplicationControllerIsAGenericWorkload(t *testing.T) {
	p := write(t, t.TempDir(), "rc.yaml", `apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: rc}}
    spec: {containers: [{name: a, image: x}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`)
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: []string{p}}, inv); err != nil {
		t.Fatal(err)
	}
	if len(inv.Workloads) != 1 || !inv.Workloads[0].Generic || inv.Workloads[0].Object.Kind != "ReplicationController" ||
		*inv.Workloads[0].Replicas != 2 || inv.Objects != 2 {
		t.Errorf("workloads %+v, objects %d", inv.Workloads, inv.Objects)
	}
}

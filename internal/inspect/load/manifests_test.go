package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

func TestManifestsMultiDocumentAndList(t *testing.T) {
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: []string{"testdata/multi.yaml"}}, inv); err != nil {
		t.Fatal(err)
	}
	if len(inv.Workloads) != 1 || len(inv.Services) != 1 || len(inv.PDBs) != 1 || len(inv.HPAs) != 1 {
		t.Fatalf("got %d workloads, %d services, %d PDBs, %d HPAs; want 1 each", len(inv.Workloads), len(inv.Services), len(inv.PDBs), len(inv.HPAs))
	}
	if inv.HPAs[0].MinReplicas != 3 {
		t.Errorf("autoscaling/v2beta2 HPA minReplicas = %d, want 3", inv.HPAs[0].MinReplicas)
	}
	w := inv.Workloads[0]
	if w.Object != (inspect.ObjectRef{Kind: "Deployment", Namespace: "default", Name: "web"}) {
		t.Errorf("workload = %+v", w.Object)
	}
	if w.Source == nil || w.Source.File != "testdata/multi.yaml" || w.Source.Line != 12 {
		t.Errorf("Deployment source = %+v, want testdata/multi.yaml line 12", w.Source)
	}
	if p := inv.PDBs[0].Source; p == nil || p.Line != 35 {
		t.Errorf("PDB in a List should point at the List (line 35): %+v", p)
	}
	r := inspect.Audit(inv, inspect.DefaultOptions())
	want := map[string]bool{"prestop-exceeds-grace": false, "pdb-blocks-eviction": false}
	for _, f := range r.Findings {
		if _, ok := want[f.Check]; ok {
			want[f.Check] = true
		}
	}
	for id, seen := range want {
		if !seen {
			t.Errorf("%s not found in %+v", id, r.Findings)
		}
	}
}

func TestManifestsNamespaceAndStdin(t *testing.T) {
	data, err := os.ReadFile("testdata/multi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inv := &inspect.Inventory{}
	err = Manifests(ManifestOptions{Filenames: []string{"-"}, Namespace: "shop", Stdin: strings.NewReader(string(data))}, inv)
	if err != nil {
		t.Fatal(err)
	}
	w := inv.Workloads[0]
	if w.Object.Namespace != "shop" || w.Source.File != "STDIN" || w.Source.Line != 12 {
		t.Errorf("stdin workload = %+v from %+v", w.Object, w.Source)
	}
}

func TestManifestsKustomize(t *testing.T) {
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Kustomize: "testdata/kustomize"}, inv); err != nil {
		t.Fatal(err)
	}
	if len(inv.Workloads) != 1 || inv.Workloads[0].Object.Namespace != "shop" {
		t.Fatalf("kustomize: %+v", inv.Workloads)
	}
}

func TestManifestsBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unreadable := write("unreadable.yaml", "kind: Service\n")
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file, want string
	}{
		{"missing file", filepath.Join(dir, "nope.yaml"), "nope.yaml"},
		{"YAML that does not parse", write("bad.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: [\n"), "bad.yaml"},
		{"unknown kind", write("kind.yaml", "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n"), `unknown kind "Deploymnet"`},
		{"no kind", write("nokind.yaml", "apiVersion: v1\nmetadata: {name: x}\n"), "nokind.yaml"},
		{"wrong field type", write("type.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: many}\n"), `type.yaml:4:18: spec.replicas: a string "many" where the API type has an integer (int32)`},
	}
	if os.Geteuid() != 0 { // root reads files without read permission
		cases = append(cases, struct{ name, file, want string }{"unreadable", unreadable, "unreadable.yaml"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Manifests(ManifestOptions{Filenames: []string{tc.file}}, &inspect.Inventory{})
			if err == nil {
				t.Fatalf("no error for %s", tc.file)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || len(msg) > 400 {
				t.Errorf("error %q: want one short line containing %q", msg, tc.want)
			}
		})
	}
}

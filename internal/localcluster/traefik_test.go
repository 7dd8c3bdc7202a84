package localcluster

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/mod/modfile"
)

// The throw-away module repeats Traefik's own replace and exclude lines:
// each of Traefik's go.mod (as the module proxy serves it) is in ours,
// the nested dynamic/ext one pointing at our stub. Skipped where the
// module cannot be downloaded.
func TestTraefikModuleRepeatsTraefiksReplaces(t *testing.T) {
	ours, err := modfile.Parse("go.mod", []byte(traefikModule["go.mod"]), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/traefik/traefik/v3@"+TraefikVersion).Output()
	if err != nil {
		t.Skipf("go mod download of traefik %s: %v (no module proxy here?)", TraefikVersion, err)
	}
	var m struct{ GoMod string }
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	gomod := m.GoMod
	raw, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := modfile.Parse(gomod, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, r := range ours.Replace {
		have[r.Old.Path] = r.New.Path + " " + r.New.Version
	}
	for _, r := range theirs.Replace {
		want := r.New.Path + " " + r.New.Version
		if r.Old.Path == "github.com/traefik/traefik/dynamic/ext" {
			want = "./ext "
		}
		if have[r.Old.Path] != want {
			t.Errorf("replace %s: ours %q, Traefik's %q", r.Old.Path, have[r.Old.Path], want)
		}
	}
	excluded := map[string]bool{}
	for _, e := range ours.Exclude {
		excluded[e.Mod.String()] = true
	}
	for _, e := range theirs.Exclude {
		if !excluded[e.Mod.String()] {
			t.Errorf("Traefik excludes %s, ours does not", e.Mod)
		}
	}
}

package krewmanifest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// manifest is the part of krew's Plugin type (sigs.k8s.io/krew/pkg/index)
// these tests read.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Homepage         string `json:"homepage"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			Sha256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeArchives creates one fake archive per platform the project releases,
// each with different contents, and returns their sha256 by file name.
func writeArchives(t *testing.T, dir string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for _, p := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"} {
		name := "kubectl-graceful_" + p + ".tar.gz"
		if strings.HasPrefix(p, "windows") {
			name = "kubectl-graceful_" + p + ".zip"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("archive "+p), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := FileSHA256(path)
		if err != nil {
			t.Fatal(err)
		}
		sums[name] = sum
	}
	return sums
}

func TestRenderProjectTemplate(t *testing.T) {
	dir := t.TempDir()
	sums := writeArchives(t, dir)

	out, err := Render(repoFile(t, "krew/graceful.yaml"), "v1.2.3", dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.UnmarshalStrict(out, &m); err != nil {
		t.Fatalf("rendered manifest is not valid YAML for krew's fields: %v\n%s", err, out)
	}
	if m.Metadata.Name != "graceful" || m.Spec.Version != "v1.2.3" {
		t.Errorf("name %q version %q, want graceful v1.2.3", m.Metadata.Name, m.Spec.Version)
	}
	if n := len(strings.Fields(m.Spec.ShortDescription)); n > 8 {
		t.Errorf("shortDescription has %d words; krew asks for a few", n)
	}
	if len(m.Spec.Platforms) != len(sums) {
		t.Fatalf("%d platforms, want %d", len(m.Spec.Platforms), len(sums))
	}
	for _, p := range m.Spec.Platforms {
		os, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		name := filepath.Base(p.URI)
		if !strings.HasPrefix(p.URI, "file://") || !strings.Contains(name, "_"+os+"_"+arch+".") {
			t.Errorf("%s/%s: uri %s is not this platform's local archive", os, arch, p.URI)
		}
		if p.Sha256 != sums[name] {
			t.Errorf("%s/%s: sha256 %s, want %s", os, arch, p.Sha256, sums[name])
		}
		wantBin := "kubectl-graceful"
		if os == "windows" {
			wantBin += ".exe"
		}
		if p.Bin != wantBin {
			t.Errorf("%s/%s: bin %q, want %q", os, arch, p.Bin, wantBin)
		}
		var hasLicense, hasBin bool
		for _, f := range p.Files {
			hasLicense = hasLicense || f.From == "LICENSE"
			hasBin = hasBin || f.From == wantBin
		}
		if !hasLicense || !hasBin {
			t.Errorf("%s/%s: files %+v must extract the binary and LICENSE", os, arch, p.Files)
		}
	}
}

func TestRenderRejectsMissingArchive(t *testing.T) {
	tmpl := []byte(`{{addURIAndSha "https://example.invalid/releases/download/{{ .TagName }}/kubectl-graceful_plan9_amd64.tar.gz" .TagName }}`)
	_, err := Render(tmpl, "v1.0.0", t.TempDir(), "")
	if err == nil || !strings.Contains(err.Error(), "kubectl-graceful_plan9_amd64.tar.gz") {
		t.Fatalf("err = %v, want one naming the missing archive", err)
	}
}

func TestRenderMatchesBotLayout(t *testing.T) {
	// The bot prints uri and sha256 on two lines, the second indented by four
	// spaces to sit under a platform item; the renderer must do the same.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.tar.gz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Render([]byte(`    {{addURIAndSha "https://h/{{ .TagName }}/a.tar.gz" .TagName }}`), "v9", dir, "")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	abs, _ := filepath.Abs(filepath.Join(dir, "a.tar.gz"))
	wantURI := "    uri: file://" + filepath.ToSlash(abs)
	if runtime.GOOS == "windows" {
		wantURI = "    uri: file:///" + filepath.ToSlash(abs)
	}
	// sha256 of "x".
	wantSha := "    sha256: 2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
	if len(lines) != 2 || lines[0] != wantURI || lines[1] != wantSha {
		t.Fatalf("rendered %q, want %q", out, wantURI+"\n"+wantSha)
	}
}

func TestVerifyChecksumsCatchesChangedArchive(t *testing.T) {
	dir := t.TempDir()
	sums := writeArchives(t, dir)
	var list strings.Builder
	for name, sum := range sums {
		list.WriteString(sum + "  " + name + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := VerifyChecksums(dir); err != nil || n != len(sums) {
		t.Fatalf("VerifyChecksums = %d, %v; want %d, nil", n, err, len(sums))
	}
	if err := os.WriteFile(filepath.Join(dir, "kubectl-graceful_linux_amd64.tar.gz"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyChecksums(dir); err == nil || !strings.Contains(err.Error(), "linux_amd64") {
		t.Fatalf("err = %v, want one naming the changed archive", err)
	}
}

func TestRenderWithServedArchives(t *testing.T) {
	dir := t.TempDir()
	sums := writeArchives(t, dir)
	out, err := Render(repoFile(t, "krew/graceful.yaml"), "v1.2.3", dir, "http://127.0.0.1:8080/dl/")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Spec.Platforms {
		name := strings.TrimPrefix(p.URI, "http://127.0.0.1:8080/dl/")
		if sums[name] == "" || p.Sha256 != sums[name] {
			t.Errorf("uri %s sha256 %s: not one of the served archives", p.URI, p.Sha256)
		}
	}
}

func TestRenderAvailableKeepsBuiltPlatformsOnly(t *testing.T) {
	dir := t.TempDir()
	sums := writeArchives(t, dir)
	for name := range sums {
		if name != "kubectl-graceful_linux_amd64.tar.gz" {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := RenderAvailable(repoFile(t, "krew/graceful.yaml"), "v1.2.3", dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.UnmarshalStrict(out, &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(m.Spec.Platforms) != 1 || m.Spec.Platforms[0].Selector.MatchLabels["os"] != "linux" ||
		m.Spec.Platforms[0].Sha256 != sums["kubectl-graceful_linux_amd64.tar.gz"] {
		t.Fatalf("platforms %+v, want linux/amd64 alone with its sha256", m.Spec.Platforms)
	}
	if m.Metadata.Name != "graceful" || m.Spec.Version != "v1.2.3" || m.Spec.Description == "" {
		t.Fatalf("metadata or spec lost in re-encoding:\n%s", out)
	}

	empty := t.TempDir()
	if _, err := RenderAvailable(repoFile(t, "krew/graceful.yaml"), "v1.2.3", empty, ""); err == nil {
		t.Fatal("RenderAvailable with no archives succeeded")
	}
}

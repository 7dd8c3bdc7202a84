// Package install tests the plugin as users get it: GoReleaser's snapshot
// archives, the krew manifest rendered for them, checked by krew's own
// validator, installed by krew into a temporary KREW_ROOT and run through the
// real kubectl. It needs no cluster and no network beyond the Go module proxy
// (for the first build of the pinned tools, cached afterwards).
package install

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/krewmanifest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/tools"
)

// platforms are the os_arch pairs .goreleaser.yaml releases.
var platforms = []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"}

// allPlatformsEnv, set to 1, makes the test build every platform's archive
// as `make dist` does (about six times the build time) instead of the host's
// only.
const allPlatformsEnv = "KUBECTL_GRACEFUL_INSTALL_ALL_PLATFORMS"

// hostPlatform is the os_arch this test runs on.
var hostPlatform = runtime.GOOS + "_" + runtime.GOARCH

// archiveName is GoReleaser's name for a platform's archive.
func archiveName(platform string) string {
	if strings.HasPrefix(platform, "windows_") {
		return "kubectl-graceful_" + platform + ".zip"
	}
	return "kubectl-graceful_" + platform + ".tar.gz"
}

// versionInfo is the JSON of `kubectl graceful version -o json`.
type versionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Platform string `json:"platform"`
}

// release is one snapshot build shared by the subtests.
type release struct {
	repo   string   // repository root
	dist   string   // GoReleaser's output folder
	built  []string // the os_arch pairs built
	tag    string   // the stamped version, "v" + GoReleaser's .Version
	commit string   // git HEAD the snapshot was built from
}

func TestReleaseArchivesInstallWithKrew(t *testing.T) {
	e2e.Require(t, "builds every release archive with GoReleaser")
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH; this test runs the plugin through the real kubectl")
	}
	ctx := t.Context()
	goreleaser := ensure(ctx, t, tools.GoReleaser)
	krew := ensure(ctx, t, tools.Krew)
	validator := ensure(ctx, t, tools.ValidateKrewManifest)

	rel := buildSnapshot(ctx, t, goreleaser)

	// kubectl finds krew as the plugin "kubectl-krew" on PATH.
	krewBin := t.TempDir()
	if err := os.Symlink(krew, filepath.Join(krewBin, "kubectl-krew")); err != nil {
		t.Fatal(err)
	}
	basePath := krewBin + string(os.PathListSeparator) + filepath.Dir(kubectl) + string(os.PathListSeparator) + os.Getenv("PATH")

	t.Run("checksums", func(t *testing.T) {
		n, err := krewmanifest.VerifyChecksums(rel.dist)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rel.built {
			if _, err := os.Stat(filepath.Join(rel.dist, archiveName(p))); err != nil {
				t.Errorf("no archive for %s: %v", p, err)
			}
		}
		if n != len(rel.built) {
			t.Errorf("checksums.txt lists %d files, want the %d archives", n, len(rel.built))
		}
	})

	t.Run("linux_amd64 archive runs version", func(t *testing.T) {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			t.Skipf("the linux/amd64 binary cannot run on %s/%s", runtime.GOOS, runtime.GOARCH)
		}
		dir := t.TempDir()
		files := untar(t, filepath.Join(rel.dist, archiveName("linux_amd64")), dir)
		for _, want := range []string{"kubectl-graceful", "LICENSE", "kubectl_complete-graceful"} {
			if !files[want] {
				t.Errorf("archive lacks %s (has %v)", want, files)
			}
		}
		info := pluginVersion(t, exec.Command(filepath.Join(dir, "kubectl-graceful"), "version", "-o", "json"))
		checkStamp(t, info, rel)
	})

	t.Run("validate-krew-manifest", func(t *testing.T) {
		// krew downloads only over HTTP(S): serve dist/ on loopback so the
		// validator installs every platform's archive, as krew-index CI does.
		srv := httptest.NewServer(http.FileServer(http.Dir(rel.dist)))
		defer srv.Close()
		out := validate(ctx, t, validator, renderManifest(t, rel, srv.URL), basePath)
		want := fmt.Sprintf("all %d spec.platforms installed fine", len(rel.built))
		if !strings.Contains(out, want) {
			t.Fatalf("validator did not install the %d built platforms:\n%s", len(rel.built), out)
		}
	})

	t.Run("validate-krew-manifest all platforms", func(t *testing.T) {
		// The whole template, for stand-in archives of every platform: the
		// validator's structural checks (names, selectors covering supported
		// platforms without overlap) without installing.
		dir := t.TempDir()
		for _, p := range platforms {
			if err := os.WriteFile(filepath.Join(dir, archiveName(p)), []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := krewmanifest.Render(readRepoFile(t, rel.repo, "krew/graceful.yaml"), rel.tag, dir, "https://example.invalid/download")
		if err != nil {
			t.Fatal(err)
		}
		manifest := filepath.Join(t.TempDir(), "graceful.yaml")
		if err := os.WriteFile(manifest, out, 0o644); err != nil {
			t.Fatal(err)
		}
		validate(ctx, t, validator, manifest, basePath, "-skip-install")
	})

	t.Run("krew install and kubectl graceful", func(t *testing.T) {
		krewRoot := t.TempDir()
		env := append(os.Environ(),
			"KREW_ROOT="+krewRoot,
			"KUBECONFIG="+filepath.Join(krewRoot, "no-kubeconfig"),
			"PATH="+filepath.Join(krewRoot, "bin")+string(os.PathListSeparator)+basePath)

		manifest := renderManifest(t, rel, "") // file:// URIs, as `make krew-manifest` writes
		archive := filepath.Join(rel.dist, archiveName(hostPlatform))
		install := exec.CommandContext(ctx, kubectl, "krew", "install", "--manifest="+manifest, "--archive="+archive)
		install.Env = env
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("kubectl krew install: %v\n%s", err, out)
		}

		version := exec.CommandContext(ctx, kubectl, "graceful", "version", "-o", "json")
		version.Env = env
		checkStamp(t, pluginVersion(t, version), rel)

		// kubectl 1.26+ completes "kubectl graceful <TAB>" through
		// kubectl_complete-graceful on PATH; docs/install.md tells krew users
		// to link it to the plugin in krew's bin folder.
		link := filepath.Join(krewRoot, "bin", "kubectl_complete-graceful")
		if err := os.Symlink("kubectl-graceful", link); err != nil {
			t.Fatal(err)
		}
		complete := exec.CommandContext(ctx, kubectl, "__complete", "graceful", "")
		complete.Env = env
		out, err := complete.Output()
		if err != nil {
			t.Fatalf("kubectl __complete graceful: %v\n%s", err, out)
		}
		if !hasLine(string(out), "version") || !hasLine(string(out), "completion") {
			t.Errorf("kubectl graceful <TAB> offered %q, want version and completion", out)
		}
	})
}

// ensure builds or finds a pinned tool in the per-user cache.
func ensure(ctx context.Context, t *testing.T, tool tools.Tool) string {
	t.Helper()
	path, err := tool.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// validate runs krew's validate-krew-manifest on manifest with krew and
// kubectl on path, failing the test with its output if it fails.
func validate(ctx context.Context, t *testing.T, validator, manifest, path string, flags ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, validator, append(flags, "-manifest", manifest)...)
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("validate-krew-manifest %s: %v\n%s", strings.Join(flags, " "), err, out)
	}
	return string(out)
}

func readRepoFile(t *testing.T, repo, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// buildSnapshot runs `goreleaser release --snapshot` on the repository with
// the output folder moved to a temporary one, so the developer's dist/ is
// left alone, and, unless allPlatformsEnv is set, the builds cut down to the
// host's platform.
func buildSnapshot(ctx context.Context, t *testing.T, goreleaser string) release {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	built := platforms
	if os.Getenv(allPlatformsEnv) != "1" {
		built = []string{hostPlatform}
	}
	config, err := snapshotConfig(readRepoFile(t, repo, ".goreleaser.yaml"), dist, len(built) == 1)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(cfgPath, config, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := tools.GoReleaserCommand(ctx, goreleaser, repo, "release", "--snapshot", "--clean", "--config", cfgPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser release --snapshot: %v\n%s", err, out)
	}
	tag, err := krewmanifest.DistTag(dist)
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return release{repo: repo, dist: dist, built: built, tag: tag, commit: strings.TrimSpace(string(head))}
}

// snapshotConfig returns the GoReleaser config with dist set and, if
// hostOnly, each build that targets the host's OS narrowed to the host's
// os/arch, the other builds and their archives removed.
func snapshotConfig(config []byte, dist string, hostOnly bool) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(config, &doc); err != nil {
		return nil, err
	}
	doc["dist"] = dist
	if !hostOnly {
		return yaml.Marshal(doc)
	}
	keptBuilds := map[string]bool{}
	var builds []any
	for _, b := range doc["builds"].([]any) {
		build := b.(map[string]any)
		for _, goos := range build["goos"].([]any) {
			if goos == runtime.GOOS {
				build["goos"], build["goarch"] = []string{runtime.GOOS}, []string{runtime.GOARCH}
				builds = append(builds, build)
				keptBuilds[build["id"].(string)] = true
			}
		}
	}
	var archives []any
	for _, a := range doc["archives"].([]any) {
		for _, id := range a.(map[string]any)["ids"].([]any) {
			if keptBuilds[id.(string)] {
				archives = append(archives, a)
				break
			}
		}
	}
	if len(builds) == 0 || len(archives) == 0 {
		return nil, fmt.Errorf(".goreleaser.yaml builds or archives nothing for %s", hostPlatform)
	}
	doc["builds"], doc["archives"] = builds, archives
	return yaml.Marshal(doc)
}

// renderManifest renders krew/graceful.yaml for the archives rel built (the
// other platforms left out) into a file named graceful.yaml (krew requires
// the plugin's name) and returns its path.
func renderManifest(t *testing.T, rel release, uriBase string) string {
	t.Helper()
	tmpl, err := os.ReadFile(filepath.Join(rel.repo, "krew", "graceful.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := krewmanifest.RenderAvailable(tmpl, rel.tag, rel.dist, uriBase)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "graceful.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pluginVersion runs a version command and decodes its JSON.
func pluginVersion(t *testing.T, cmd *exec.Cmd) versionInfo {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if exitErr, ok := err.(*exec.ExitError); ok {
			stderr = exitErr.Stderr
		}
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr)
	}
	var info versionInfo
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("version -o json printed %q: %v", out, err)
	}
	return info
}

// checkStamp compares the version a binary prints with the snapshot's.
func checkStamp(t *testing.T, info versionInfo, rel release) {
	t.Helper()
	if info.Version != rel.tag {
		t.Errorf("version %q, want the stamped %q", info.Version, rel.tag)
	}
	if info.Commit != rel.commit {
		t.Errorf("commit %q, want %q", info.Commit, rel.commit)
	}
	if info.Date == "" || info.Date == "unknown" {
		t.Errorf("build date not stamped: %q", info.Date)
	}
	if info.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("platform %q, want %s/%s", info.Platform, runtime.GOOS, runtime.GOARCH)
	}
}

// untar extracts a .tar.gz into dir and returns the names it held.
func untar(t *testing.T, archive, dir string) map[string]bool {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names[h.Name] = true
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "/") {
			continue // the archives are flat; nothing else to extract
		}
		out, err := os.OpenFile(filepath.Join(dir, h.Name), os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode)&0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// hasLine reports whether out has a completion candidate named word (cobra
// prints "word\tdescription").
func hasLine(out, word string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l == word || strings.HasPrefix(l, word+"\t") {
			return true
		}
	}
	return false
}

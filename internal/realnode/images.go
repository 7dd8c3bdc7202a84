package realnode

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The images the real node runs, built from this repository's source and
// imported into containerd (no registry: pods use imagePullPolicy Never).
const (
	// TestAppImage is internal/realnode/testapp alone: no shell and no
	// sleep binary, like a distroless image.
	TestAppImage = "localhost/kubectl-graceful/testapp:dev"
	// TestAppShellImage is the same app with busybox's sh and sleep (from
	// Debian's busybox-static), for exec preStop hooks that need them.
	TestAppShellImage = "localhost/kubectl-graceful/testapp-shell:dev"
	// PauseImage is containerd's sandbox_image: internal/realnode/pause.
	PauseImage = "localhost/kubectl-graceful/pause:dev"
)

// busybox is Debian's static busybox (package busybox-static).
const busybox = "/bin/busybox"

// imageFile is one regular file or symlink of an image's only layer.
type imageFile struct {
	path string // inside the image, no leading slash
	data []byte // regular file content
	link string // symlink target, for a link
}

// image is one single-layer image: its files and its entrypoint.
type image struct {
	name       string
	files      []imageFile
	entrypoint []string
}

// buildImages compiles the test app and the pause binary from repoRoot and
// returns the three images.
func buildImages(repoRoot, tmp string) ([]image, error) {
	app, err := goBuild(repoRoot, tmp, "./internal/realnode/testapp")
	if err != nil {
		return nil, err
	}
	pause, err := goBuild(repoRoot, tmp, "./internal/realnode/pause")
	if err != nil {
		return nil, err
	}
	bb, err := os.ReadFile(busybox)
	if err != nil {
		return nil, fmt.Errorf("the shell image needs Debian's busybox-static: %w", err)
	}
	appFile := imageFile{path: "testapp", data: app}
	return []image{
		{name: TestAppImage, files: []imageFile{appFile}, entrypoint: []string{"/testapp"}},
		{name: TestAppShellImage, entrypoint: []string{"/testapp"}, files: []imageFile{appFile,
			{path: "bin/busybox", data: bb}, {path: "bin/sh", link: "busybox"}, {path: "bin/sleep", link: "busybox"}}},
		{name: PauseImage, files: []imageFile{{path: "pause", data: pause}}, entrypoint: []string{"/pause"}},
	}, nil
}

// goBuild builds a static binary of pkg and returns its bytes.
func goBuild(repoRoot, tmp, pkg string) ([]byte, error) {
	out := filepath.Join(tmp, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOFLAGS=-mod=mod")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w: %s", pkg, err, bytes.TrimSpace(b))
	}
	return os.ReadFile(out)
}

// writeArchive writes img as a docker-archive tar (manifest.json, the
// config, one layer), the form `ctr images import` takes.
func writeArchive(w io.Writer, img image) error {
	layer, err := layerTar(img.files)
	if err != nil {
		return err
	}
	diff := sha256.Sum256(layer)
	config, err := json.Marshal(map[string]any{
		"architecture": "amd64",
		"os":           "linux",
		"config":       map[string]any{"Entrypoint": img.entrypoint, "Env": []string{"PATH=/bin"}},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(diff[:])}},
	})
	if err != nil {
		return err
	}
	cfgSum := sha256.Sum256(config)
	cfgName := hex.EncodeToString(cfgSum[:]) + ".json"
	layerName := hex.EncodeToString(diff[:]) + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{img.name}, "Layers": []string{layerName}}})
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	for _, f := range []struct {
		name string
		data []byte
	}{{cfgName, config}, {layerName, layer}, {"manifest.json", manifest}} {
		if err := writeTarFile(tw, f.name, f.data, 0o644); err != nil {
			return err
		}
	}
	return tw.Close()
}

// layerTar packs files into an uncompressed layer, parent folders first.
func layerTar(files []imageFile) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		if d := filepath.Dir(f.path); d != "." && !dirs[d] {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
				return nil, err
			}
		}
		if f.link != "" {
			if err := tw.WriteHeader(&tar.Header{Name: f.path, Typeflag: tar.TypeSymlink, Linkname: f.link, Mode: 0o777, ModTime: epoch}); err != nil {
				return nil, err
			}
			continue
		}
		if err := writeTarFile(tw, f.path, f.data, 0o755); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// epoch keeps layers byte for byte the same from one build to the next.
var epoch = time.Unix(0, 0)

func writeTarFile(tw *tar.Writer, name string, data []byte, mode int64) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(data)), ModTime: epoch}); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

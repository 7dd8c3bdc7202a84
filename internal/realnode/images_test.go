package realnode

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"testing"
)

// The archive is what `ctr images import` reads as a docker archive: a
// manifest naming the image, a config whose diff_id is the layer's own
// digest, and the layer with the files and links asked for.
func TestWriteArchive(t *testing.T) {
	img := image{name: TestAppShellImage, entrypoint: []string{"/testapp"}, files: []imageFile{
		{path: "testapp", data: []byte("binary")}, {path: "bin/busybox", data: []byte("bb")}, {path: "bin/sh", link: "busybox"}}}
	var buf bytes.Buffer
	if err := writeArchive(&buf, img); err != nil {
		t.Fatal(err)
	}
	files := untar(t, buf.Bytes())
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v %s", err, files["manifest.json"])
	}
	m := manifest[0]
	if len(m.RepoTags) != 1 || m.RepoTags[0] != TestAppShellImage || len(m.Layers) != 1 {
		t.Fatalf("manifest %+v", m)
	}
	var cfg struct {
		Config struct{ Entrypoint []string }
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(files[m.Config], &cfg); err != nil {
		t.Fatal(err)
	}
	layer := files[m.Layers[0]]
	sum := sha256.Sum256(layer)
	if len(cfg.RootFS.DiffIDs) != 1 || cfg.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("diff_ids %v, layer digest %x", cfg.RootFS.DiffIDs, sum)
	}
	if len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/testapp" {
		t.Errorf("entrypoint %v", cfg.Config.Entrypoint)
	}
	tr := tar.NewReader(bytes.NewReader(layer))
	got := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = string(h.Typeflag) + h.Linkname
	}
	want := map[string]string{"testapp": "0", "bin/": "5", "bin/busybox": "0", "bin/sh": "2busybox"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("layer entry %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	var again bytes.Buffer
	_ = writeArchive(&again, img)
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("two builds of one image differ: the layer is not reproducible")
	}
}

func untar(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name], _ = io.ReadAll(tr)
	}
}

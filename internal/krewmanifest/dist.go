package krewmanifest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DistTag returns the release tag GoReleaser built the archives in distDir
// for: "v" followed by the version in distDir/metadata.json (GoReleaser's
// .Version has no "v"; the binaries are stamped with the same "v" form).
func DistTag(distDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(distDir, "metadata.json"))
	if err != nil {
		return "", fmt.Errorf("reading GoReleaser's metadata (run `make dist` first): %w", err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(distDir, "metadata.json"), err)
	}
	if meta.Version == "" {
		return "", fmt.Errorf("%s has no version", filepath.Join(distDir, "metadata.json"))
	}
	return "v" + strings.TrimPrefix(meta.Version, "v"), nil
}

// VerifyChecksums checks every archive listed in distDir/checksums.txt
// (lines "<sha256>  <file name>") against the file beside it, so a manifest
// is never rendered from archives that changed after GoReleaser summed them.
// It returns the number of files checked.
func VerifyChecksums(distDir string) (int, error) {
	f, err := os.Open(filepath.Join(distDir, "checksums.txt"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return n, fmt.Errorf("checksums.txt: malformed line %q", sc.Text())
		}
		got, err := FileSHA256(filepath.Join(distDir, name))
		if err != nil {
			return n, err
		}
		if got != want {
			return n, fmt.Errorf("%s: sha256 %s, checksums.txt says %s", name, got, want)
		}
		n++
	}
	return n, sc.Err()
}

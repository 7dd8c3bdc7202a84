// Package krewmanifest renders krew/graceful.yaml, a krew-release-bot
// template, for archives on the local disk, so that the plugin can be
// installed with `kubectl krew install --manifest` before (or without) a
// release.
package krewmanifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/template"
)

// Render executes the krew-release-bot template tmpl with .TagName set to
// tag. The template function addURIAndSha(url, tag) works as the bot's does
// (github.com/rajatjindal/krew-release-bot, pkg/source: it renders url with
// .TagName and prints "uri: ...", then "sha256: ..." on the next line indented
// by four spaces), except that the archive comes from archiveDir: the file
// named like the URL's last path element. The sha256 is computed from that
// file. The uri printed is the file's file:// URL when uriBase is empty
// (krew installs it only with --archive: its downloader speaks HTTP(S) only),
// else uriBase + "/" + the file name, for a local server of archiveDir. It
// returns an error naming the archive when one is missing or unreadable.
func Render(tmpl []byte, tag, archiveDir, uriBase string) ([]byte, error) {
	return render(tmpl, tag, func(releaseURL, tag string) (string, error) {
		return localURIAndSha(releaseURL, tag, archiveDir, uriBase)
	})
}

// render executes tmpl with addURIAndSha as the template function of that name.
func render(tmpl []byte, tag string, addURIAndSha func(releaseURL, tag string) (string, error)) ([]byte, error) {
	funcs := template.FuncMap{"addURIAndSha": addURIAndSha}
	t, err := template.New("krew").Funcs(funcs).Option("missingkey=error").Parse(string(tmpl))
	if err != nil {
		return nil, fmt.Errorf("parsing the krew manifest template: %w", err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, struct{ TagName string }{TagName: tag}); err != nil {
		return nil, fmt.Errorf("rendering the krew manifest template: %w", err)
	}
	return out.Bytes(), nil
}

// localURIAndSha is addURIAndSha for an archive in archiveDir.
func localURIAndSha(releaseURL, tag, archiveDir, uriBase string) (string, error) {
	var u bytes.Buffer
	t, err := template.New("url").Parse(releaseURL)
	if err != nil {
		return "", err
	}
	if err := t.Execute(&u, struct{ TagName string }{TagName: tag}); err != nil {
		return "", err
	}
	parsed, err := url.Parse(u.String())
	if err != nil {
		return "", fmt.Errorf("archive URL %q: %w", u.String(), err)
	}
	file, err := filepath.Abs(filepath.Join(archiveDir, path.Base(parsed.Path)))
	if err != nil {
		return "", err
	}
	sum, err := FileSHA256(file)
	if err != nil {
		return "", fmt.Errorf("archive for %s: %w", u.String(), err)
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()
	if uriBase != "" {
		uri = strings.TrimSuffix(uriBase, "/") + "/" + url.PathEscape(filepath.Base(file))
	}
	return fmt.Sprintf("uri: %s\n    sha256: %s", uri, sum), nil
}

// FileSHA256 returns the lowercase hex sha256 of the file at path, the form
// krew's manifest and GoReleaser's checksums.txt use.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

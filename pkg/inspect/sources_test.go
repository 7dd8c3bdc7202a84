package inspect

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sourceRef is the shape of a place a reader can open: a path in the
// Kubernetes repository (pkg/..., staging/...) or a Go package
// (k8s.io/...), a KEP, an issue or pull request (owner/repo#N, or #N after
// one), a web address, a documentation page named by its title in quotes,
// or a vendor's documented setting (AWS, GKE, Istio).
var sourceRef = regexp.MustCompile(`\b(pkg|staging|cmd)/[a-z0-9_./-]+|\bk8s\.io/[a-z]+|\bKEP-[0-9]+\b|\b[\w.-]+/[\w.-]+#[0-9]+|\b[a-z0-9-]+\.(io|com|dev|org)/\S+|"[^"]+"|\b(AWS|GKE|Istio)\b|\bKubernetes [a-z ]*(reference|guide)\b`)

// issueRef is an issue or pull request reference: owner/repo#N.
var issueRef = regexp.MustCompile(`[\w.-]+/[\w.-]+#`)

// Every check's explanation (`audit explain ID`) names its source, and each
// part of it ("; "-separated) a place a reader can open: no part is only
// words. A repository document (docs/...) it names exists.
func TestEveryExplanationNamesAnOpenableSource(t *testing.T) {
	for _, c := range Checks() {
		src := c.Explanation.Source
		if strings.TrimSpace(src) == "" {
			t.Errorf("%s: no source", c.ID)
			continue
		}
		for _, part := range strings.Split(src, "; ") {
			if !sourceRef.MatchString(part) {
				t.Errorf("%s: source part %q names no path, KEP, issue, address or document title", c.ID, part)
			}
			if strings.Contains(part, "#") && !issueRef.MatchString(part) {
				t.Errorf("%s: source part %q has an issue number without its owner/repo", c.ID, part)
			}
		}
		for _, doc := range regexp.MustCompile(`\bdocs/[\w-]+\.md\b`).FindAllString(src, -1) {
			if _, err := os.Stat(filepath.Join("..", "..", doc)); err != nil {
				t.Errorf("%s: source names %s, which does not exist: %v", c.ID, doc, err)
			}
		}
	}
}

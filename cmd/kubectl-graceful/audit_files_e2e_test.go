package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// Bad, old and namespace-less manifests through the real kubectl, as a
// user or a CI job runs them: no cluster is contacted (the kubeconfig
// points at a closed port).
func TestAuditBadAndOldManifestsThroughKubectl(t *testing.T) {
	e2e.Require(t, "runs the plugin through kubectl")
	dir := t.TempDir()
	kc := writeKubeconfig(t, "shop")
	run := func(args ...string) e2e.Result {
		return e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc, "HOME=" + dir}, append([]string{"graceful", "audit"}, args...)...)
	}
	legacy := writeFile(t, dir, "legacy.yaml", legacyWeb)
	empty := writeFile(t, dir, "empty.yaml", "# nothing here\n")
	dup := writeFile(t, dir, "dup.yaml", strings.Replace(legacyWeb, "  replicas: 2\n", "  replicas: 2\n  replicas: 3\n", 1))
	secret := writeFile(t, dir, "secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData:\n  password: \"hunter2\n---\n"+legacyWeb)

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"removed version, namespace from the context", []string{"-f", legacy}, 2,
			[]string{"shop/Deployment/web", "grace-period-zero", "removed-api-version"}, nil},
		{"-n wins over the context", []string{"-f", legacy, "-n", "prod"}, 2, []string{"prod/Deployment/web"}, nil},
		{"no objects", []string{"-f", empty}, 1, nil, []string{"error: no objects passed to audit (in " + empty + ")"}},
		{"duplicate key", []string{"-f", dup}, 1, nil, []string{"error: " + dup + `:7: duplicate key "replicas" (first at line 6)`}},
		{"Secret that does not parse", []string{"-f", secret}, 2, []string{"1 not audited: documents that do not parse"},
			[]string{"skipped " + secret + `:1: Secret "creds" does not parse and is not a kind the audit reads`}},
	} {
		res := run(tc.args...)
		if res.ExitCode != tc.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.name, res.ExitCode, tc.code, res.Stdout, res.Stderr)
		}
		for _, w := range tc.stdout {
			if !strings.Contains(res.Stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", tc.name, w, res.Stdout)
			}
		}
		for _, w := range tc.stderr {
			if !strings.Contains(res.Stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, res.Stderr)
			}
		}
		if strings.Contains(res.Stdout+res.Stderr, "hunter2") {
			t.Errorf("%s: a Secret's value was printed", tc.name)
		}
		if n := strings.Count(strings.TrimSpace(res.Stderr), "\n"); tc.code == 1 && n > 0 {
			t.Errorf("%s: the error is %d lines, want one:\n%s", tc.name, n+1, res.Stderr)
		}
	}
}

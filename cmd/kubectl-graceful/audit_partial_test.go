package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// naiveDeployment is a Deployment with findings of its own (no preStop,
// no readiness probe), named name.
func naiveDeployment(name string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:
      containers: [{name: web, image: nginx}]
`
}

// unreadable returns a path the audit cannot read: a file without read
// permission, or, for root (whom permissions do not stop), a file whose
// read fails in the kernel.
func unreadable(t *testing.T, dir string) string {
	t.Helper()
	if os.Geteuid() == 0 {
		return "/proc/self/mem" // open works, read at offset 0 is EIO
	}
	p := filepath.Join(dir, "secret.yaml")
	if err := os.WriteFile(p, []byte(naiveDeployment("hidden")), 0o000); err != nil {
		t.Fatal(err)
	}
	return p
}

// Ten inputs, one unreadable and one that does not parse: the findings of
// the other eight are reported in every output format, each unread input
// is named on its own line, and the exit status is 1.
func TestAuditReportsWhatItCouldRead(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for i := 0; i < 8; i++ {
		p := filepath.Join(dir, "app"+string(rune('a'+i))+".yaml")
		if err := os.WriteFile(p, []byte(naiveDeployment("app"+string(rune('a'+i)))), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-f", p)
	}
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte(strings.Replace(naiveDeployment("broken"), "name: broken", "name: [broken", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := unreadable(t, dir)
	args = append(args, "-f", bad, "-f", broken)
	for _, format := range []string{"table", "json", "yaml", "sarif"} {
		t.Run(format, func(t *testing.T) {
			stdout, stderr, code := runAudit(t, "", append(append([]string{}, args...), "-o", format)...)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr)
			}
			for i := 0; i < 8; i++ {
				if name := "app" + string(rune('a'+i)); !strings.Contains(stdout, name) {
					t.Errorf("-o %s: no finding of %s, which could be read:\n%s", format, name, stdout)
				}
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "error: not read: "+bad) || !strings.HasPrefix(lines[1], "error: not read: "+broken) {
				t.Errorf("-o %s: stderr %q, want one line for each unread input", format, stderr)
			}
			if format == "json" && !json.Valid([]byte(stdout)) {
				t.Errorf("-o json is not JSON:\n%s", stdout)
			}
		})
	}
}

// An input that never ends is read up to --max-input-size and reported
// as not read, in bounded time and memory; nothing else was given, so
// there is nothing to report but that.
func TestAuditInputSizeCap(t *testing.T) {
	_, stderr, code := runAudit(t, "", "-f", "/dev/zero", "--max-input-size", "1Mi")
	if code != 1 || !strings.Contains(stderr, "/dev/zero is larger than 1 MiB (--max-input-size): not read") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runAudit(t, "", "-f", "/dev/zero", "--max-input-size", "lots")
	if code != 1 || !strings.Contains(stderr, `--max-input-size "lots" is not a positive quantity`) {
		t.Errorf("a bad --max-input-size: exit %d, stderr %q", code, stderr)
	}
}

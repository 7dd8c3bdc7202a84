package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// runAudit runs `audit ARGS` in process with stdin and returns stdout,
// stderr and the exit code main would use.
func runAudit(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}
	cmd := newCmdAudit(&auditOptions{configFlags: genericclioptions.NewConfigFlags(false), IOStreams: streams})
	cmd.SetArgs(args)
	cmd.SetOut(&errOut)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	err := cmd.Execute()
	if msg := cliutil.Message(err); msg != "" {
		errOut.WriteString(msg + "\n")
	}
	return out.String(), errOut.String(), cliutil.CodeOf(err)
}

// copyExamples copies examples/ into a temporary directory.
func copyExamples(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "examples")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() { // examples/real-node: read with -R only
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestAuditFixExamples is the "done when": --fix --diff shows one
// change per broken example and changes nothing (exit 2); --fix rewrites
// the files (modes kept) so that the audit reports no error-level finding,
// and a second --fix --diff is empty (exit 0).
func TestAuditFixExamples(t *testing.T) {
	dir := copyExamples(t)
	if err := os.Chmod(filepath.Join(dir, "naive.yaml"), 0o640); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, dir)
	stdout, stderr, code := runAudit(t, "", "-f", dir, "--fix", "--diff")
	if code != cliutil.ExitRisk {
		t.Fatalf("--fix --diff: exit %d, want 2\n%s", code, stderr)
	}
	for _, f := range []string{"broken-grace-period-zero.yaml", "broken-pdb-max-unavailable-zero.yaml", "broken-prestop-exceeds-grace.yaml", "naive.yaml"} {
		if strings.Count(stdout, "+++ "+filepath.Join(dir, f)+"\n") != 1 {
			t.Errorf("diff has no (or more than one) section for %s:\n%s", f, stdout)
		}
	}
	for _, want := range []string{"+      terminationGracePeriodSeconds: 25", "+            sleep:\n+              seconds: 40", "+      terminationGracePeriodSeconds: 60", "-  maxUnavailable: 0\n+  maxUnavailable: 1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "manual  graceful-demo/Deployment/lonely single-replica: ") {
		t.Errorf("single-replica not listed as manual on stderr:\n%s", stderr)
	}
	if after := readTree(t, dir); !equalTrees(before, after) {
		t.Fatalf("--diff changed files")
	}

	_, stderr, code = runAudit(t, "", "-f", dir, "--fix")
	if code != 0 {
		t.Fatalf("--fix: exit %d\n%s", code, stderr)
	}
	if st, err := os.Stat(filepath.Join(dir, "naive.yaml")); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode not kept: %v %v", st.Mode(), err)
	}
	stdout, stderr, code = runAudit(t, "", "-f", dir, "-o", "json", "--fail-on", "none")
	var r inspect.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
		t.Fatalf("audit after --fix: exit %d, %v\n%s", code, err, stderr)
	}
	if r.Summary.Errors != 0 {
		t.Errorf("error-level findings left after --fix: %+v", r.Findings)
	}
	stdout, _, code = runAudit(t, "", "-f", dir, "--fix", "--diff")
	if code != 0 || stdout != "" {
		t.Errorf("second --fix --diff: exit %d, diff:\n%s", code, stdout)
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestAuditFixStdin: -f - prints the whole fixed stream on stdout and
// what was done on stderr.
func TestAuditFixStdin(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "broken-prestop-exceeds-grace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runAudit(t, string(src), "-f", "-", "--fix")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "# Broken: the preStop hook sleeps 40 s") || !strings.Contains(stdout, "terminationGracePeriodSeconds: 60") {
		t.Errorf("stdout is not the fixed stream:\n%s", stdout)
	}
	if !strings.Contains(stderr, "fixed   graceful-demo/Deployment/slow-prestop (STDIN)") {
		t.Errorf("stderr does not say what was fixed:\n%s", stderr)
	}
	// A stream with nothing to fix comes out as it went in.
	clean := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x # keep\n"
	if stdout, _, code := runAudit(t, clean, "-f", "-", "--fix"); code != 0 || stdout != clean {
		t.Errorf("unchanged stream: exit %d, %q", code, stdout)
	}
}

// TestAuditFixSkips: files --fix cannot edit safely are skipped with a
// line each, the others are fixed, and the exit code is 1.
func TestAuditFixSkips(t *testing.T) {
	dir := copyExamples(t)
	helm := filepath.Join(dir, "helm.yaml")
	tpl := strings.Replace(mustRead(t, filepath.Join(dir, "naive.yaml")), "nginx:1.27", `"{{ .Values.image }}"`, 1)
	tpl = strings.ReplaceAll(tpl, "naive", "templated")
	if err := os.WriteFile(helm, []byte(tpl), 0o644); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "broken-grace-period-zero.yaml")
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	roBefore, helmBefore := mustRead(t, ro), mustRead(t, helm)
	// --diff writes nothing: a read-only file is shown like any other.
	if stdout, stderr, code := runAudit(t, "", "-f", ro, "--fix", "--diff"); code != cliutil.ExitRisk || !strings.Contains(stdout, "+++ "+ro) {
		t.Errorf("--diff of a read-only file: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code := runAudit(t, "", "-f", dir, "--fix")
	if code != cliutil.ExitError {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"skipped " + helm + ": not safely editable: a template", "skipped " + ro + ": read-only"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if mustRead(t, ro) != roBefore || mustRead(t, helm) != helmBefore {
		t.Errorf("a skipped file was changed")
	}
	if !strings.Contains(mustRead(t, filepath.Join(dir, "naive.yaml")), "preStop") {
		t.Errorf("the editable files were not fixed")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".fix-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func mustRead(t *testing.T, f string) string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAuditFixRefusals: --fix where it cannot apply is one line, exit 1.
func TestAuditFixRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fix"}, "fix the manifests the objects come from"},
		{[]string{"-k", "overlays/prod", "--fix"}, "--fix cannot edit -k output"},
		{[]string{"-f", "x.yaml", "--diff"}, "--diff and --fix-only go with --fix"},
		{[]string{"-f", "x.yaml", "--fix", "--fix-only", "nope"}, "--fix-only: unknown check"},
		{[]string{"-f", "x.yaml", "--fix", "-o", "json"}, "--fix prints its own report"},
	} {
		stdout, stderr, code := runAudit(t, "", tc.args...)
		if code != cliutil.ExitError || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("audit %v: exit %d, stderr %q, stdout %q; want exit 1 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

// TestWriteAtomic: the content is replaced through a rename in the same
// directory, the mode is kept, a symbolic link stays a link to the new
// content, and no temporary file is left behind.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink("real.yaml", link); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file: %v %v", fi.Mode(), err)
	}
	if got := mustRead(t, target); got != "new\n" {
		t.Errorf("target content %q", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left in the directory: %v", entries)
	}
	if err := writeAtomic(filepath.Join(dir, "missing", "x.yaml"), []byte("x")); err == nil {
		t.Errorf("writing into a missing directory succeeded")
	}
}

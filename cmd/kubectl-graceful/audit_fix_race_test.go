package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
)

const abruptGrace = `apiVersion: apps/v1
kind: Deployment
metadata: {name: abrupt, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: abrupt}}
  template:
    metadata: {labels: {app: abrupt}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [{name: web, image: nginx}]
`

// runAuditWith runs audit in process like runAudit, with o's hooks set.
func runAuditWith(t *testing.T, afterLoad func(), args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	o := &auditOptions{configFlags: genericclioptions.NewConfigFlags(false), afterLoad: afterLoad,
		IOStreams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}}
	cmd := newCmdAudit(o)
	cmd.SetArgs(args)
	cmd.SetOut(&errOut)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if msg := cliutil.Message(err); msg != "" {
		errOut.WriteString(msg + "\n")
	}
	return out.String(), errOut.String(), cliutil.CodeOf(err)
}

// Another process raises terminationGracePeriodSeconds from 0 to 90 after
// the audit read the file: --fix planned "0 -> 20" from the old text and
// must not write it over 90 (lowering the grace it promises never to
// lower), nor say it fixed anything.
func TestFixRefusesAFileChangedSinceItWasRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "abrupt.yaml")
	if err := os.WriteFile(p, []byte(abruptGrace), 0o644); err != nil {
		t.Fatal(err)
	}
	raised := strings.Replace(abruptGrace, "terminationGracePeriodSeconds: 0", "terminationGracePeriodSeconds: 90", 1)
	stdout, stderr, code := runAuditWith(t, func() { _ = os.WriteFile(p, []byte(raised), 0o644) }, "-f", p, "--fix")
	got, _ := os.ReadFile(p)
	if string(got) != raised {
		t.Errorf("the file was rewritten over another process's change:\n%s", got)
	}
	if code != 1 || !strings.Contains(stderr, "changed since the audit read it: not fixed") || strings.Contains(stdout, "fixed   ") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// A write that fails (here a folder no one may change, as a read-only
// file system is) is reported as not fixed, with the reason, and no
// "fixed" line; the exit status is 1.
func TestFixReportsAFailedWrite(t *testing.T) {
	if _, err := exec.LookPath("chattr"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs chattr and root to make a folder immutable")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "abrupt.yaml")
	if err := os.WriteFile(p, []byte(abruptGrace), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v: %s (the file system does not support it)", err, out)
	}
	defer func() { _ = exec.Command("chattr", "-i", dir).Run() }()
	stdout, stderr, code := runAuditWith(t, nil, "-f", p, "--fix")
	if got, _ := os.ReadFile(p); string(got) != abruptGrace {
		t.Errorf("the file changed:\n%s", got)
	}
	if code != 1 || !strings.Contains(stderr, "not fixed: cannot write beside it") || strings.Contains(stdout, "fixed   ") ||
		!strings.Contains(stdout, "0 objects fixed in 0 files") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestAuditColor(t *testing.T) {
	for _, tc := range []struct {
		flag    string
		noColor bool
		want    bool
	}{
		{"auto", false, false}, // not a terminal
		{"always", false, true},
		{"always", true, true}, // an explicit flag wins over NO_COLOR
		{"never", false, false},
	} {
		if tc.noColor {
			t.Setenv("NO_COLOR", "1")
		}
		o := &auditOptions{colorFlag: tc.flag, IOStreams: genericiooptions.IOStreams{Out: &bytes.Buffer{}}}
		if got := o.useColor(); got != tc.want {
			t.Errorf("--color %s NO_COLOR=%v: %v, want %v", tc.flag, tc.noColor, got, tc.want)
		}
	}
}

func TestAuditValidate(t *testing.T) {
	valid := func() *auditOptions {
		return &auditOptions{configFlags: genericclioptions.NewConfigFlags(false), output: "table", failOnFlag: "error", colorFlag: "auto", preStopFloor: 5, maxGrace: 300}
	}
	for _, tc := range []struct {
		name string
		mod  func(*auditOptions)
		want string
	}{
		{"fail-on", func(o *auditOptions) { o.failOnFlag = "fatal" }, "--fail-on"},
		{"skip", func(o *auditOptions) { o.skip = []string{"nope"} }, "--skip"},
		{"output", func(o *auditOptions) { o.output = "xml" }, "--output"},
		{"color", func(o *auditOptions) { o.colorFlag = "rainbow" }, "--color"},
		{"-f with resources", func(o *auditOptions) { o.filenames = []string{"x"}; o.resources = []string{"deploy/x"} }, "resource arguments"},
		{"-f and -k", func(o *auditOptions) { o.filenames = []string{"x"}; o.kustomize = "y" }, "either -f or -k"},
		{"-f with -A", func(o *auditOptions) { o.filenames = []string{"x"}; o.allNamespaces = true }, "-A and -l"},
	} {
		o := valid()
		tc.mod(o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if err := valid().Validate(); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}

func TestAuditConfigFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "graceful.yaml")
	if err := os.WriteFile(file, []byte("skip: [pdb-missing]\nfailOn: warning\nshutdownSeconds: 20\nmaxGrace: 120\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &auditOptions{configFlags: genericclioptions.NewConfigFlags(false), IOStreams: genericiooptions.IOStreams{Out: &bytes.Buffer{}}}
	cmd := newCmdAudit(opts)
	if err := cmd.Flags().Parse([]string{"--config", file, "--max-grace", "600", "-f", "x.yaml"}); err != nil {
		t.Fatal(err)
	}
	if err := opts.Complete(cmd, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Join(opts.skip, ",") != "pdb-missing" || opts.failOnFlag != "warning" || opts.shutdownSeconds != 20 || opts.maxGrace != 600 {
		t.Errorf("config not applied or flag not winning: skip=%v failOn=%s shutdown=%d maxGrace=%d", opts.skip, opts.failOnFlag, opts.shutdownSeconds, opts.maxGrace)
	}
	if err := os.WriteFile(file, []byte("skipp: [x]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := opts.Complete(cmd, nil); err == nil || !strings.Contains(err.Error(), "skipp") {
		t.Errorf("unknown config key accepted: %v", err)
	}
}

// `audit explain ID` is the one spelling (kubectl's explain is a
// subcommand too): it prints the check's text, and with no ID the list.
func TestAuditExplainSubcommand(t *testing.T) {
	res := run(t, pluginBin, "audit", "explain", "missing-prestop")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "missing-prestop ") || !strings.Contains(res.stdout, "Why it matters:") {
		t.Errorf("audit explain missing-prestop: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if list := run(t, pluginBin, "audit", "explain"); list.code != 0 || !strings.Contains(list.stdout, "pdb-overlap") {
		t.Errorf("audit explain without ID lists no checks: exit %d, %q", list.code, list.stdout)
	}
}

// The removed `audit --explain ID` says, in one line and with exit 1, to
// use the subcommand; it audits nothing and needs no kubeconfig.
func TestAuditExplainFlagPointsToSubcommand(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	res := run(t, pluginBin, "audit", "--explain", "missing-prestop")
	want := "error: audit --explain was removed: use kubectl graceful audit explain missing-prestop\n"
	if res.code != 1 || res.stderr != want || res.stdout != "" {
		t.Errorf("audit --explain missing-prestop: exit %d, stdout %q, stderr %q; want exit 1 and stderr %q", res.code, res.stdout, res.stderr, want)
	}
}

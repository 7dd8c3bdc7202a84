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
		o := &auditOptions{Color: tc.flag, IOStreams: genericiooptions.IOStreams{Out: &bytes.Buffer{}}}
		if got := o.useColor(); got != tc.want {
			t.Errorf("--color %s NO_COLOR=%v: %v, want %v", tc.flag, tc.noColor, got, tc.want)
		}
	}
}

func TestAuditValidate(t *testing.T) {
	valid := func() *auditOptions {
		return &auditOptions{configFlags: genericclioptions.NewConfigFlags(false), Output: "table", FailOn: "error", Color: "auto", PreStopFloor: 5, MaxGrace: 300}
	}
	for _, tc := range []struct {
		name string
		mod  func(*auditOptions)
		want string
	}{
		{"fail-on", func(o *auditOptions) { o.FailOn = "fatal" }, "--fail-on"},
		{"skip", func(o *auditOptions) { o.Skip = []string{"nope"} }, "--skip"},
		{"output", func(o *auditOptions) { o.Output = "xml" }, "--output"},
		{"color", func(o *auditOptions) { o.Color = "rainbow" }, "--color"},
		{"-f with resources", func(o *auditOptions) { o.Filenames = []string{"x"}; o.Resources = []string{"deploy/x"} }, "resource arguments"},
		{"-f and -k", func(o *auditOptions) { o.Filenames = []string{"x"}; o.Kustomize = "y" }, "either -f or -k"},
		{"-f with -A", func(o *auditOptions) { o.Filenames = []string{"x"}; o.AllNamespaces = true }, "-A and -l"},
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
	if strings.Join(opts.Skip, ",") != "pdb-missing" || opts.FailOn != "warning" || opts.ShutdownSeconds != 20 || opts.MaxGrace != 600 {
		t.Errorf("config not applied or flag not winning: skip=%v failOn=%s shutdown=%d maxGrace=%d", opts.Skip, opts.FailOn, opts.ShutdownSeconds, opts.MaxGrace)
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

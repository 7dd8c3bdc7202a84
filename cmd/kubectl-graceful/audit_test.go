package main

import (
	"bytes"
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
		o := &AuditOptions{Color: tc.flag, IOStreams: genericiooptions.IOStreams{Out: &bytes.Buffer{}}}
		if got := o.useColor(); got != tc.want {
			t.Errorf("--color %s NO_COLOR=%v: %v, want %v", tc.flag, tc.noColor, got, tc.want)
		}
	}
}

func TestAuditValidate(t *testing.T) {
	valid := func() *AuditOptions {
		return &AuditOptions{configFlags: genericclioptions.NewConfigFlags(false), Output: "table", FailOn: "error", Color: "auto", PreStopFloor: 5, MaxGrace: 300}
	}
	for _, tc := range []struct {
		name string
		mod  func(*AuditOptions)
		want string
	}{
		{"fail-on", func(o *AuditOptions) { o.FailOn = "fatal" }, "--fail-on"},
		{"skip", func(o *AuditOptions) { o.Skip = []string{"nope"} }, "--skip"},
		{"output", func(o *AuditOptions) { o.Output = "xml" }, "--output"},
		{"color", func(o *AuditOptions) { o.Color = "rainbow" }, "--color"},
		{"-f with resources", func(o *AuditOptions) { o.Filenames = []string{"x"}; o.Resources = []string{"deploy/x"} }, "resource arguments"},
		{"-f and -k", func(o *AuditOptions) { o.Filenames = []string{"x"}; o.Kustomize = "y" }, "either -f or -k"},
		{"-f with -A", func(o *AuditOptions) { o.Filenames = []string{"x"}; o.AllNamespaces = true }, "-A and -l"},
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

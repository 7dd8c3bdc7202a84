package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const bareDryRunWarning = "warning: --dry-run without a value is taken as --dry-run=client, as kubectl does: write --dry-run=client (or --dry-run=server)"

// A bare --dry-run is --dry-run=client with one warning line on stderr, as
// kubectl's GetDryRunStrategy warns; --dry-run=client says nothing. The
// commands fail in Validate, before any cluster is needed.
func TestDrainBareDryRunWarns(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dry-run"}, bareDryRunWarning + "\nerror: name the nodes or select them with -l: kubectl graceful drain node NAME... (or -l SELECTOR)\n"},
		{[]string{"--dry-run=client"}, "error: name the nodes or select them with -l: kubectl graceful drain node NAME... (or -l SELECTOR)\n"},
		{[]string{"--dry-run", "server", "-l", "pool=old"}, bareDryRunWarning +
			`; "server" after it is read as a node name, not as the mode: write --dry-run=server` +
			"\nerror: name nodes or select them with -l, not both\n"},
	} {
		res := run(t, pluginBin, append([]string{"drain", "node"}, tc.args...)...)
		if res.code != 1 || res.stderr != tc.want || res.stdout != "" {
			t.Errorf("drain node %v: exit %d, stdout %q, stderr %q; want exit 1, stderr %q", tc.args, res.code, res.stdout, res.stderr, tc.want)
		}
	}
}

// The bare flag keeps its meaning: the client dry run, the preflight only.
func TestDrainBareDryRunIsClient(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	for flag, want := range map[string]string{"--dry-run": "client", "--dry-run=server": "server", "--dry-run=client": "client", "--force": "none"} {
		var errOut bytes.Buffer
		o := newDrainNodeOptions(genericclioptions.NewConfigFlags(false), genericiooptions.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}, nil)
		cmd := newCmdDrainNode(o)
		if err := cmd.Flags().Parse([]string{flag, "n1"}); err != nil {
			t.Fatal(err)
		}
		if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
			t.Fatal(err)
		}
		if o.dryRun != want || o.Validate() != nil {
			t.Errorf("%s: DryRun %q (Validate: %v), want %q", flag, o.dryRun, o.Validate(), want)
		}
		if warned := errOut.Len() > 0; warned != (flag == "--dry-run") {
			t.Errorf("%s: stderr %q", flag, errOut.String())
		}
	}
}

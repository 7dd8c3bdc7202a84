package main

import (
	"os"
	"runtime/debug"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestGCPolicyOnlyForAudit: the start-up GC policy (no heap-growth
// trigger, internal/gcpolicy) stays for audit and is put back to the
// runtime's default for the long-running commands.
func TestGCPolicyOnlyForAudit(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the policy leaves the runtime alone")
	}
	oldPercent, oldLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) }()
	root := newCmdRoot(genericiooptions.NewTestIOStreamsDiscard(), nil)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"audit"}, -1},
		{[]string{"audit", "explain"}, -1},
		{[]string{"watch", "pod"}, 100},
		{[]string{"drain", "node"}, 100},
	} {
		debug.SetGCPercent(-1)
		cmd, _, err := root.Find(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		root.PersistentPreRun(cmd, nil)
		if got := debug.SetGCPercent(-1); got != tc.want {
			t.Errorf("%v: GC percent %d, want %d", tc.args, got, tc.want)
		}
	}
}

package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// The tables of pods already terminating and of the server's dry-run
// answers escape what comes from the cluster, say when the grace deadline
// was or will be, and a blocked preflight prints no estimate.
func TestPreflightTerminatingAndServerTables(t *testing.T) {
	evil := "hold\x1b[2J\u202e"
	var b bytes.Buffer
	Preflight(&b, &preflight.Report{Node: "n1", Verdict: "would block",
		Blockers: []preflight.Issue{{Kind: "terminating-pod-stuck", Message: "m"}},
		Terminating: []preflight.TerminatingPod{
			{Namespace: "shop", Name: "a", DeletedSecondsAgo: 70, SecondsPastDeadline: 40, Finalizers: []string{"example.com/" + evil}, WaitsOn: "finalizer example.com/" + evil},
			{Namespace: "shop", Name: "b", DeletedSecondsAgo: 10, SecondsPastDeadline: -20, WaitsOn: "its grace period (ends in 20s)"},
		},
		ServerDryRun: []preflight.ServerAnswer{{Namespace: "shop", Name: "c", Answer: "forbidden", Code: 403, Cause: "denied " + evil}},
	}, 0)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("raw control characters: %q", out)
	}
	for _, want := range []string{"Already terminating (not evicted again, waited for): 2", "1m10s ago", "passed 40s ago", "in 20s",
		`example.com/hold\x1b[2J\u202e`, "none", "forbidden", "403", `denied hold\x1b[2J\u202e`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Estimated time") {
		t.Errorf("a blocked preflight prints an estimate:\n%s", out)
	}
}

package main

import (
	"strings"
	"testing"
)

// A group command given an argument that names no subcommand fails in one
// line (exit 1) and drains nothing; bare, it prints its help (exit 0).
func TestGroupCommandsRefuseUnknownArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr; "" for the help on stdout
	}{
		{[]string{"drain", "real-node-0"}, 1, `error: unknown command "real-node-0" for "kubectl graceful drain": did you mean kubectl graceful drain node real-node-0?`},
		{[]string{"drain", "real-node-0", "--ignore-daemonsets"}, 1, `unknown flag: --ignore-daemonsets for "kubectl graceful drain": the flags belong to a subcommand, as in kubectl graceful drain node NAME`},
		{[]string{"drain", "--ignore-daemonsets", "real-node-0"}, 1, "as in kubectl graceful drain node NAME"},
		{[]string{"drain", "nod", "real-node-0"}, 1, `unknown command "nod" for "kubectl graceful drain": did you mean "node"?`},
		{[]string{"drian", "node", "x"}, 1, `unknown command "drian" for "kubectl graceful": did you mean "drain"?`},
		{[]string{"--bogus"}, 1, "unknown flag: --bogus"},
		{[]string{"drain"}, 0, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if tc.want == "" {
				if !strings.Contains(out, "kubectl graceful drain [command]") || errOut != "" {
					t.Errorf("want the help on stdout alone; stdout %q, stderr %q", out, errOut)
				}
				return
			}
			if out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("want one line on stderr with %q and nothing on stdout; stdout %q, stderr %q", tc.want, out, errOut)
			}
		})
	}
}

package main

import (
	"path/filepath"
	"strings"
)

// completionExecName is the executable kubectl 1.26+ looks up on PATH to
// complete `kubectl graceful ...` (k8s.io/kubectl/pkg/cmd/plugin,
// plugin_completion.go: "kubectl-" becomes "kubectl_complete-").
const completionExecName = "kubectl_complete-graceful"

// rootArgs returns the arguments the root command runs with. When the binary
// is invoked as kubectl_complete-graceful (a symlink or a copy), kubectl
// passes the words typed after "kubectl graceful", the last one being the
// word to complete; cobra's hidden __complete command answers in the format
// kubectl parses (one candidate a line, then ":<directive>").
func rootArgs(argv0 string, args []string) []string {
	name := strings.ToLower(filepath.Base(argv0))
	if strings.TrimSuffix(name, ".exe") != completionExecName {
		return args
	}
	return append([]string{"__complete"}, args...)
}

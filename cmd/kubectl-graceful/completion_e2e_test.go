package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// bashCompletion is where the bash-completion package puts its library,
// which cobra's bash script needs (.ci/run installs it).
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// bashComplete runs bash's completion of line (the cursor at its end) the
// way bash runs it on <TAB>: cobra's script sourced into a real bash with
// bash-completion loaded, in dir, with env; it returns COMPREPLY.
func bashComplete(t *testing.T, env []string, dir, line string) []string {
	t.Helper()
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Skipf("%s is missing (install bash-completion to run this test)", bashCompletion)
	}
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	script := `source ` + bashCompletion + `
source <("$BIN" completion bash)
PATH="$(dirname "$BIN"):$PATH"
COMP_WORDS=(` + strings.Join(quoted, " ") + `); COMP_CWORD=$((${#COMP_WORDS[@]}-1))
COMP_LINE="$LINE"; COMP_POINT=${#COMP_LINE}
__start_kubectl-graceful 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "BIN="+pluginBin, "LINE="+line)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash completing %q: %v\n%s", line, err, out)
	}
	var reply []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// cobra's script escapes what the shell would split (a comma
		// included): what bash inserts, unescaped, is what is typed.
		if l = strings.TrimSpace(l); l != "" {
			reply = append(reply, unescapeShell(l))
		}
	}
	return reply
}

// TestBashCompletionOfNamesE2E: <TAB> offers what the cluster the typed
// flags select holds (nodes, pods, workloads, namespaces), the
// kubeconfig's contexts, the values of -o and the enum flags, and check
// IDs; never the local files of the directory where a name is expected.
func TestBashCompletionOfNamesE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ctx := context.Background()
	ns, node := env.Namespace(t), env.Node(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: ns},
		Spec: corev1.PodSpec{NodeName: node, Tolerations: []corev1.Toleration{e2e.NodeToleration},
			Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	if _, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "api"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: new(int32), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}}}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Local files named like what is completed: offering them would be wrong.
	dir := t.TempDir()
	for _, f := range []string{node + "-notes.txt", "web-0.yaml", "deployment-x"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kc := []string{"KUBECONFIG=" + env.Kubeconfig}
	raw, err := os.ReadFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	context := currentContext(t, string(raw))
	cases := []struct {
		line string
		want []string
		// exact: nothing else may be offered.
		exact bool
	}{
		{"kubectl-graceful drain node " + node[:len(node)-2], []string{node}, true},
		{"kubectl-graceful drain node " + node + " " + node[:len(node)-2], nil, true},
		{"kubectl-graceful watch node " + node[:len(node)-2], []string{node}, true},
		{"kubectl-graceful watch pod -n " + ns + " ", []string{"web-0"}, true},
		{"kubectl-graceful -n " + ns + " watch pod w", []string{"web-0"}, true},
		{"kubectl-graceful watch pod web-0 -n " + ns + " ", nil, true},
		{"kubectl-graceful watch -n " + ns + " deploy", []string{"deployment/"}, true},
		{"kubectl-graceful watch -n " + ns + " deployment/", []string{"deployment/api"}, true},
		{"kubectl-graceful watch -n " + ns + " deploy ", []string{"api"}, true},
		{"kubectl-graceful audit -n " + ns + " deployment/a", []string{"deployment/api"}, true},
		{"kubectl-graceful watch pod -n " + ns[:len(ns)-1], []string{ns}, false},
		{"kubectl-graceful audit --context ", []string{context}, false},
		{"kubectl-graceful audit --contexts " + context + ",", nil, true},
		{"kubectl-graceful audit -o ", []string{"table", "json", "yaml", "sarif"}, true},
		{"kubectl-graceful audit --fail-on w", []string{"warning"}, true},
		{"kubectl-graceful audit --color ", []string{"auto", "always", "never"}, true},
		{"kubectl-graceful watch pod -o ", []string{"json", "yaml", "mermaid"}, true},
		{"kubectl-graceful watch node -o ", []string{"json", "yaml", "mermaid"}, true},
		{"kubectl-graceful drain node -o ", []string{"json", "yaml"}, true},
		{"kubectl-graceful version -o ", []string{"json", "yaml"}, true},
		{"kubectl-graceful audit explain missing-pre", []string{"missing-prestop"}, true},
		{"kubectl-graceful audit --skip missing-prestop,missing-pre", nil, true},
		{"kubectl-graceful audit --skip missing-prestop,pdb-mis", []string{"missing-prestop,pdb-missing"}, true},
		{"kubectl-graceful audit --fix-only pdb-mis", []string{"pdb-missing"}, true},
	}
	for _, c := range cases {
		got := bashComplete(t, kc, dir, c.line)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q not offered; got %q", c.line, w, got)
			}
		}
		if c.exact && len(got) != len(c.want) {
			t.Errorf("%q: offered %q, want exactly %q", c.line, got, c.want)
		}
		for _, g := range got {
			if _, err := os.Stat(filepath.Join(dir, g)); err == nil {
				t.Errorf("%q: offered the local file %q", c.line, g)
			}
		}
	}
	// The cluster is the one the typed flags name: a --kubeconfig typed on
	// the line wins over $KUBECONFIG, which names nothing here.
	got := bashComplete(t, []string{"KUBECONFIG=" + filepath.Join(dir, "none")}, dir,
		"kubectl-graceful --kubeconfig "+env.Kubeconfig+" drain node "+node[:len(node)-2])
	if !slices.Equal(got, []string{node}) {
		t.Errorf("with --kubeconfig typed: offered %q, want %q", got, node)
	}
}

// TestKubectlPluginCompletionE2E: "kubectl graceful drain node <TAB>" as
// kubectl 1.26+ completes it, through kubectl_complete-graceful on PATH.
func TestKubectlPluginCompletionE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	node := env.Node(t)
	shims := t.TempDir()
	for _, name := range []string{pluginBinary, completionExecName} {
		if err := os.Symlink(pluginBin, filepath.Join(shims, name)); err != nil {
			t.Skipf("cannot symlink: %v", err)
		}
	}
	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + env.Kubeconfig, "PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH")},
		"__complete", "graceful", "drain", "node", node[:len(node)-2])
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	// cobra's directive 4 is ShellCompDirectiveNoFileComp.
	if res.ExitCode != 0 || !slices.Contains(lines, node) || lines[len(lines)-1] != ":4" {
		t.Errorf("exit %d, stdout %q, stderr %q; want %s offered and :4 (no files)", res.ExitCode, res.Stdout, res.Stderr, node)
	}
}

// unescapeShell undoes printf %q's backslash escapes.
func unescapeShell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// currentContext is the current-context of a kubeconfig's text.
func currentContext(t *testing.T, kubeconfig string) string {
	t.Helper()
	for _, l := range strings.Split(kubeconfig, "\n") {
		if v, ok := strings.CutPrefix(l, "current-context:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	t.Fatal("the kubeconfig has no current-context")
	return ""
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pluginBin is the plugin built once for this package's tests, so that
// completion is checked the way a shell and kubectl call it: as a process.
// Under `make test` it is the binary make just built ($GRACEFUL_BINARY, as
// e2e.Binary uses): building another copy was most of the package's
// unit-test time (54 s against 3 s on a loaded machine).
var pluginBin string

func TestMain(m *testing.M) {
	if p := os.Getenv("GRACEFUL_BINARY"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			panic(err)
		}
		pluginBin = abs
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "kubectl-graceful-bin-")
	if err != nil {
		panic(err)
	}
	pluginBin = filepath.Join(dir, "kubectl-graceful")
	build := exec.Command("go", "build", "-o", pluginBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building kubectl-graceful: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, bin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errOut.String(), code}
}

func TestCompletionScriptsNameThePluginBinary(t *testing.T) {
	// Each script must register completion for the program users type,
	// kubectl-graceful, not for the root command's name "graceful".
	want := map[string]string{
		"bash":       "complete -o default -F __start_kubectl-graceful kubectl-graceful",
		"zsh":        "#compdef kubectl-graceful",
		"fish":       "complete -c kubectl-graceful ",
		"powershell": "Register-ArgumentCompleter -CommandName 'kubectl-graceful'",
	}
	for shell, line := range want {
		res := run(t, pluginBin, "completion", shell)
		if res.code != 0 || !strings.Contains(res.stdout, line) {
			t.Errorf("completion %s: exit %d, output lacks %q; stderr %q", shell, res.code, line, res.stderr)
		}
		if strings.Contains(res.stdout, " graceful\n") || strings.Contains(res.stdout, "__start_graceful") {
			t.Errorf("completion %s registers the bare name \"graceful\"", shell)
		}
	}
}

func TestBashCompletionCompletesSubcommands(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	// cobra's bash script needs the bash-completion package, as on users'
	// machines (Debian: apt-get install bash-completion).
	const bashCompletion = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Skipf("%s is missing (install bash-completion to run this test)", bashCompletion)
	}
	// Source the script in a real bash, then run its completion function the
	// way bash does on "kubectl-graceful ver<TAB>".
	script := `source ` + bashCompletion + `
source <("$BIN" completion bash)
complete -p kubectl-graceful
PATH="$(dirname "$BIN"):$PATH"
COMP_WORDS=(kubectl-graceful ver); COMP_CWORD=1; COMP_LINE="kubectl-graceful ver"; COMP_POINT=${#COMP_LINE}
__start_kubectl-graceful kubectl-graceful ver kubectl-graceful
printf 'reply:%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "BIN="+pluginBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "complete -o default -F __start_kubectl-graceful kubectl-graceful") {
		t.Errorf("bash did not register the completion:\n%s", out)
	}
	if !strings.Contains(string(out), "reply:version") {
		t.Errorf("\"kubectl-graceful ver<TAB>\" did not complete to version:\n%s", out)
	}
}

func TestCompletionRejectsUnknownShell(t *testing.T) {
	res := run(t, pluginBin, "completion", "tcsh")
	if res.code != 1 || res.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and no script", res.code, res.stdout)
	}
	if lines := strings.Split(strings.TrimSpace(res.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "tcsh") {
		t.Fatalf("stderr %q, want one line naming tcsh", res.stderr)
	}
}

// TestCompletionExecName runs the binary under kubectl's completion name, the
// way kubectl 1.26+ does on "kubectl graceful <TAB>": the words after
// "graceful" as arguments, the last one being completed.
func TestCompletionExecName(t *testing.T) {
	name := completionExecName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	shim := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(pluginBin, shim); err != nil {
		t.Skipf("cannot symlink: %v", err)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{""}, []string{"completion", "version"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}},
		{[]string{"version", "-o", ""}, nil},
	}
	for _, c := range cases {
		res := run(t, shim, c.args...)
		lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
		if res.code != 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
			t.Errorf("%q: exit %d, output %q; want candidates then a :directive line", c.args, res.code, res.stdout)
			continue
		}
		for _, w := range c.want {
			found := false
			for _, l := range lines {
				found = found || l == w || strings.HasPrefix(l, w+"\t")
			}
			if !found {
				t.Errorf("%q: %q not offered in %q", c.args, w, res.stdout)
			}
		}
	}
}

func TestRootArgs(t *testing.T) {
	for _, c := range []struct {
		argv0 string
		want  string
	}{
		{"/usr/local/bin/kubectl-graceful", "version"},
		{"/home/u/.krew/bin/kubectl_complete-graceful", "__complete version"},
		{"/c/krew/bin/KUBECTL_COMPLETE-GRACEFUL.EXE", "__complete version"},
		{"kubectl_complete-graceful-old", "version"},
	} {
		if got := strings.Join(rootArgs(c.argv0, []string{"version"}), " "); got != c.want {
			t.Errorf("rootArgs(%q) = %q, want %q", c.argv0, got, c.want)
		}
	}
}

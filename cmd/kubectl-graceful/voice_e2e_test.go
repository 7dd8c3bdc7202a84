package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestOneVoiceE2E: each situation (not found, no match, named twice, a
// missing argument, a namespace that does not exist, an -o typo) is the
// same one line and exit 1 from every command it can happen to, through
// the real kubectl, before anything is changed.
func TestOneVoiceE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	missingNS := ns + "-gone"
	situations := []struct {
		name string
		runs [][]string
		want string
	}{
		{"node not found", [][]string{
			{"watch", "node", "no-such-node"},
			{"drain", "node", "no-such-node"},
			{"drain", "node", "no-such-node", "--dry-run=client"},
			{"drain", "node", "no-such-node", "--watch"},
			{"uncordon", "no-such-node"},
		}, `error: node "no-such-node" not found`},
		{"node misspelled", [][]string{
			{"watch", "node", node + "x"},
			{"drain", "node", node + "x"},
			{"uncordon", node + "x"},
		}, `error: node "` + node + `x" not found; did you mean "` + node + `"?`},
		{"no node matches", [][]string{
			{"watch", "node", "-l", "e2e.graceful.test/none=" + ns},
			{"drain", "node", "-l", "e2e.graceful.test/none=" + ns},
			{"drain", "node", "-l", "e2e.graceful.test/none=" + ns, "--watch"},
			{"uncordon", "-l", "e2e.graceful.test/none=" + ns},
		}, `error: no node matches -l "e2e.graceful.test/none=` + ns + `"`},
		{"node named twice", [][]string{
			{"watch", "node", node, node},
			{"drain", "node", node, node},
			{"drain", "node", node, node, "--dry-run=client"},
			{"uncordon", node, node},
		}, `error: node "` + node + `" is named twice`},
		{"workload named twice", [][]string{
			{"audit", "-n", ns, "deployment/web", "deployment/web"},
		}, `error: workload "deployment/web" is named twice`},
		{"context named twice", [][]string{
			{"audit", "--contexts", "a,a"},
		}, `error: context "a" is named twice`},
		{"names and -l", [][]string{
			{"watch", "node", node, "-l", "a=b"},
			{"drain", "node", node, "-l", "a=b"},
			{"uncordon", node, "-l", "a=b"},
		}, `error: name nodes or select them with -l, not both`},
		{"no node named", [][]string{{"watch", "node"}}, `error: name the nodes or select them with -l: kubectl graceful watch node NAME... (or -l SELECTOR)`},
		{"no node named (drain)", [][]string{{"drain", "node"}}, `error: name the nodes or select them with -l: kubectl graceful drain node NAME... (or -l SELECTOR)`},
		{"no node named (uncordon)", [][]string{{"uncordon"}}, `error: name the nodes or select them with -l: kubectl graceful uncordon NAME... (or -l SELECTOR)`},
		{"no pod named", [][]string{{"watch", "pod"}, {"watch", "pod", "a", "b"}}, `error: name one pod: kubectl graceful watch pod NAME`},
		{"no workload named", [][]string{{"watch"}}, `error: name one workload: kubectl graceful watch TYPE/NAME (or TYPE NAME, or watch pod NAME)`},
		{"namespace not found", [][]string{
			{"audit", "-n", missingNS},
			{"audit", "deployment/web", "-n", missingNS},
			{"watch", "pod", "web-0", "-n", missingNS},
			{"watch", "deployment/web", "-n", missingNS},
		}, `error: namespace "` + missingNS + `" not found`},
		{"pod not found", [][]string{{"watch", "pod", "web-0", "-n", ns}}, `error: pod "web-0" not found in namespace "` + ns + `"`},
		{"deployment not found", [][]string{{"watch", "deployment/web", "-n", ns}, {"watch", "deploy", "web", "-n", ns}, {"audit", "deployment/web", "-n", ns}}, `error: deployment "web" not found in namespace "` + ns + `"`},
		{"unknown check", [][]string{
			{"audit", "explain", "missing-prestp"},
			{"audit", "-n", ns, "--skip", "missing-prestp"},
		}, `unknown check "missing-prestp"; did you mean "missing-prestop"? (kubectl graceful audit explain lists the checks)`},
	}
	for _, s := range situations {
		for _, args := range s.runs {
			res := env.Kubectl(t, append([]string{"graceful"}, args...)...)
			line := strings.TrimSuffix(res.Stderr, "\n")
			if res.ExitCode != 1 || !strings.HasSuffix(line, s.want) || strings.Contains(line, "\n") || res.Stdout != "" {
				t.Errorf("%s: %v: exit %d, stdout %q, stderr %q; want exit 1 and the one line %q", s.name, args, res.ExitCode, res.Stdout, res.Stderr, s.want)
			}
		}
	}
	// An -o typo: the same words from every command with -o, its own formats listed.
	for cmd, formats := range map[string]string{
		"version":    "json, yaml, or leave it out",
		"watch pod":  "json, yaml, mermaid, or leave it out",
		"watch":      "json, yaml, mermaid, or leave it out",
		"watch node": "json, yaml, mermaid, or leave it out",
		"drain node": "json, yaml, or leave it out",
		"audit":      "table, json, yaml, sarif",
	} {
		args := append(strings.Fields(cmd), "-o", "yml")
		switch cmd {
		case "watch pod", "watch node", "drain node":
			args = append(args, node)
		case "watch":
			args = append(args, "deployment/web")
		}
		res := env.Kubectl(t, append([]string{"graceful", "-n", ns}, args...)...)
		want := `error: --output "yml" is not supported for ` + cmd + ": use " + formats + `; did you mean "yaml"?` + "\n"
		if res.ExitCode != 1 || res.Stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", args, res.ExitCode, res.Stderr, want)
		}
	}
}

// TestYAMLOutputE2E: every command with -o json takes -o yaml and prints
// the same fields, one YAML document for each JSON object.
func TestYAMLOutputE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: ns},
		Spec: corev1.PodSpec{NodeName: node, Tolerations: []corev1.Toleration{e2e.NodeToleration},
			Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	if _, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitReadyPods(t, ns, 1, e2e.SetupWait)
	empty := env.Node(t)
	for _, args := range [][]string{
		{"version"},
		{"drain", "node", empty, "--dry-run=client"},
		{"watch", "node", empty, "--timeout", "2s"},
		{"watch", "pod", "web-0", "-n", ns, "--delete", "--grace-period", "1", "--settle", "0s", "--timeout", "60s"},
	} {
		asJSON := args[0] != "watch" || args[1] != "pod" // the pod is deleted once
		var jsonDocs []map[string]any
		if asJSON {
			res := env.Kubectl(t, append(append([]string{"graceful"}, args...), "-o", "json")...)
			jsonDocs = decodeAll(t, json.NewDecoder(strings.NewReader(res.Stdout)).Decode)
		}
		res := env.Kubectl(t, append(append([]string{"graceful"}, args...), "-o", "yaml")...)
		if res.ExitCode == 1 {
			t.Errorf("%v -o yaml: exit 1, stderr %q", args, res.Stderr)
			continue
		}
		yamlDocs := decodeAll(t, yamlv3.NewDecoder(strings.NewReader(res.Stdout)).Decode)
		if len(yamlDocs) == 0 || strings.HasPrefix(strings.TrimSpace(res.Stdout), "{") {
			t.Errorf("%v -o yaml printed no YAML document:\n%s", args, res.Stdout)
			continue
		}
		if asJSON && !sameKeys(jsonDocs[len(jsonDocs)-1], yamlDocs[len(yamlDocs)-1]) {
			t.Errorf("%v: -o yaml's last document has other fields than -o json's:\njson: %v\nyaml: %v", args, jsonDocs[len(jsonDocs)-1], yamlDocs[len(yamlDocs)-1])
		}
	}
}

// decodeAll decodes every document of a stream into maps, through JSON
// (as sigs.k8s.io/yaml reads YAML) so both formats compare alike.
func decodeAll(t *testing.T, decode func(any) error) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for {
		var v any
		err := decode(&v)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("decoding: %v", err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			t.Fatalf("not an object: %s", bytes.TrimSpace(data))
		}
		docs = append(docs, m)
	}
}

// sameKeys reports whether a and b have the same top-level keys.
func sameKeys(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

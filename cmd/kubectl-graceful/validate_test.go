package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Validate changes nothing: after Complete, each command's Validate leaves
// every field as it found it, on the flags that once made it parse
// --fail-on, resolve the fleet's contexts from the kubeconfig, tee stdin
// for --fix -f - and build the probe's configuration. A second Validate
// gives the same answer.
func TestValidateChangesNothing(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: a, context: {cluster: c, user: u}}, {name: b, context: {cluster: c, user: u}}]
current-context: a
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kc)
	streams := func() genericiooptions.IOStreams {
		return genericiooptions.IOStreams{In: strings.NewReader("kind: Pod\n"), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	}
	audit := func(args ...string) func(t *testing.T) (any, func() error) {
		return func(t *testing.T) (any, func() error) {
			o := &auditOptions{configFlags: genericclioptions.NewConfigFlags(false), IOStreams: streams()}
			cmd := newCmdAudit(o)
			if err := cmd.Flags().Parse(args); err != nil {
				t.Fatal(err)
			}
			if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
				t.Fatal(err)
			}
			return o, o.Validate
		}
	}
	for name, build := range map[string]func(t *testing.T) (any, func() error){
		"audit --fail-on":  audit("--fail-on", "warning", "-f", "x.yaml"),
		"audit --fix -f -": audit("--fix", "-f", "-"),
		"audit --contexts": audit("--contexts", "b,a"),
		"drain node --dry-run": func(t *testing.T) (any, func() error) {
			o := newDrainNodeOptions(genericclioptions.NewConfigFlags(false), streams(), nil)
			cmd := newCmdDrainNode(o)
			if err := cmd.Flags().Parse([]string{"--dry-run", "-l", "pool=old"}); err != nil {
				t.Fatal(err)
			}
			if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
				t.Fatal(err)
			}
			return o, o.Validate
		},
		"watch pod --probe": func(t *testing.T) (any, func() error) {
			o := &watchPodOptions{watchFlags: watchFlags{configFlags: genericclioptions.NewConfigFlags(false), IOStreams: streams(),
				propagation: 5 * time.Second, probe: probeFlags{url: "https://shop.example.com/", rate: 20, timeout: time.Second, headers: []string{"Host: shop"}}}, gracePeriod: -1}
			if err := o.Complete(nil, []string{"web-0"}); err != nil {
				t.Fatal(err)
			}
			return o, o.Validate
		},
	} {
		t.Run(name, func(t *testing.T) {
			o, validate := build(t)
			before := reflect.ValueOf(o).Elem().Interface()
			first := validate()
			if first != nil {
				t.Fatalf("Validate: %v", first)
			}
			if after := reflect.ValueOf(o).Elem().Interface(); !reflect.DeepEqual(before, after) {
				t.Errorf("Validate changed the options:\nbefore %+v\nafter  %+v", before, after)
			}
			if second := validate(); second != nil {
				t.Errorf("a second Validate: %v", second)
			}
		})
	}
}

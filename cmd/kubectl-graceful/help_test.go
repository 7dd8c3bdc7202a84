package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// The top-level help names every command a user can run, and drain
// node's examples show --watch.
func TestHelpListsEveryCommand(t *testing.T) {
	root := newCmdRoot(genericiooptions.NewTestIOStreamsDiscard(), nil)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.Name() == "help" {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), root.CommandPath()+" ")
			if sub.Runnable() && !strings.Contains(root.Long, "\n  "+path+" ") {
				t.Errorf("the top-level help does not list %q:\n%s", path, root.Long)
			}
			walk(sub)
		}
	}
	walk(root)
	drain, _, err := root.Find([]string{"drain", "node"})
	if err != nil || !strings.Contains(drain.Example, "--watch") {
		t.Errorf("drain node's examples lack --watch: %v\n%s", err, drain.Example)
	}
}

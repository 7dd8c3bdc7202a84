package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// pluginBinary is the executable name kubectl finds on PATH for
// `kubectl graceful`; shells complete the plugin under this name when it is
// run directly.
const pluginBinary = "kubectl-graceful"

// completionShells are the shells cobra generates completion scripts for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

const completionLong = `Print a shell completion script for kubectl-graceful.

kubectl (1.26 and newer) completes plugins itself: on "kubectl graceful <TAB>"
it runs an executable named kubectl_complete-graceful from PATH. This binary
acts as that executable when it is called by that name, so a symlink (or, on
Windows, a copy named kubectl_complete-graceful.exe) next to kubectl-graceful
is all kubectl needs:

  ln -s "$(command -v kubectl-graceful)" "$(dirname "$(command -v kubectl-graceful)")/kubectl_complete-graceful"

The scripts printed here complete the binary when it is run directly as
kubectl-graceful. For example:

  source <(kubectl-graceful completion bash)
  kubectl-graceful completion zsh > "${fpath[1]}/_kubectl-graceful"
  kubectl-graceful completion fish > ~/.config/fish/completions/kubectl-graceful.fish
  kubectl-graceful completion powershell | Out-String | Invoke-Expression`

// completionOptions prints a completion script for one shell.
type completionOptions struct {
	// shell is one of completionShells.
	shell string

	// root is the command tree the script completes, and its output.
	root *cobra.Command
}

// newCmdCompletion builds `kubectl graceful completion SHELL`. It replaces
// cobra's default completion command because that one names the script after
// the root command ("graceful"), a program no shell ever runs.
func newCmdCompletion() *cobra.Command {
	return &cobra.Command{
		Use:                   "completion bash|zsh|fish|powershell",
		Short:                 "Print a shell completion script",
		Long:                  completionLong,
		DisableFlagsInUseLine: true,
		ValidArgs:             completionShells,
		Args:                  cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE:                  runE(&completionOptions{}),
	}
}

// Complete records the shell and the root of the command tree.
func (o *completionOptions) Complete(cmd *cobra.Command, args []string) error {
	o.shell = args[0]
	o.root = cmd.Root()
	return nil
}

// Validate has nothing to check: cobra's Args took only a shell of
// completionShells.
func (o *completionOptions) Validate() error { return nil }

// Run writes the script for o.shell to the root's output. The root is renamed to the
// plugin's binary name while the script is generated, since cobra takes the
// program name from the root's Use.
func (o *completionOptions) Run(context.Context) error {
	use := o.root.Use
	o.root.Use = pluginBinary
	defer func() { o.root.Use = use }()
	return generateCompletion(o.root, o.shell, o.root.OutOrStdout())
}

// generateCompletion writes cobra's script for shell, with descriptions.
func generateCompletion(root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return fmt.Errorf("shell %q is not supported: use one of bash, zsh, fish, powershell", shell)
}

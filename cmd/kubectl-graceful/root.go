package main

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	// Load every client-go auth plugin (OIDC, exec, GCP, Azure) so that any
	// kubeconfig that works with kubectl works here too.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-graceful/kubectl-graceful/internal/gcpolicy"
)

// newCmdRoot builds `kubectl graceful` with kubectl's standard flags
// (--kubeconfig, --context, -n, --as, --request-timeout, ...) bound once, on
// the root, and shared by every subcommand through configFlags.
func newCmdRoot(streams genericiooptions.IOStreams, in *interrupt) *cobra.Command {
	configFlags := genericclioptions.NewConfigFlags(true)
	configFlags.WrapConfigFn = boundedConfig
	root := &cobra.Command{
		Use:   "graceful",
		Short: "Find and prevent the requests dropped when pods terminate",
		Long: `kubectl graceful checks and watches how pods terminate, so that deploys and
node drains stop dropping requests.

  audit            check workloads' termination settings, live or from manifests
  audit explain    why a check matters, how to fix it, its source
  watch pod        watch a pod's termination and say whether it raced its endpoints
  watch TYPE/NAME  watch every termination of a rollout, with the Services' capacity
  watch node       watch the pods of draining nodes terminate, whoever drains them
  drain node       cordon and evict without breaking a PodDisruptionBudget
                   (--watch: judge the terminations it causes, as watch node does)
  uncordon         make nodes schedulable again, returning them to the load
                   balancers drain node --exclude-from-lb took them out of
  completion       print a shell completion script
  version          print the plugin's version`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl graceful",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The GC policy set at start-up (internal/gcpolicy) suits a short
	// audit; the other commands run for as long as a drain or a watch.
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if !underAudit(cmd) {
			gcpolicy.Restore()
		}
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	configFlags.AddFlags(root.PersistentFlags())
	registerRootCompletions(root, configFlags)
	setupLogging(root, streams.ErrOut)
	// Our own completion command names its scripts after the plugin binary.
	root.CompletionOptions.DisableDefaultCmd = true

	groupOf(root, nil)
	root.AddCommand(newCmdVersion())
	root.AddCommand(newCmdWatch(configFlags, streams, in))
	root.AddCommand(newCmdDrain(configFlags, streams, in))
	root.AddCommand(newCmdUncordon(configFlags, streams))
	root.AddCommand(newCmdAudit(&auditOptions{configFlags: configFlags, IOStreams: streams, interrupt: in}))
	root.AddCommand(newCmdCompletion())
	wordUnreachable(root, configFlags)
	return root
}

// underAudit reports whether cmd is `audit` or one of its subcommands.
func underAudit(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "audit" {
			return true
		}
	}
	return false
}

package main

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// completionTimeout bounds the reads one completion makes: a shell waits
// for them before it shows anything, so an unreachable cluster offers
// nothing after this rather than hanging the prompt.
const completionTimeout = 5 * time.Second

// lister reads names from the cluster: namespace is the one of -n or the
// kubeconfig's context.
type lister func(ctx context.Context, c kubernetes.Interface, namespace string) ([]string, error)

// clusterNames returns the names list reads from the cluster the flags
// typed so far select (cobra parses them before it asks for completions:
// --kubeconfig, --context, -n, --as...), those starting with prefix. Any
// failure (no kubeconfig, the cluster unreachable, RBAC) offers nothing:
// a completion has nowhere to say why.
func clusterNames(flags *genericclioptions.ConfigFlags, list lister, prefix string) []string {
	c, err := newClient(flags, clientLimits{})
	if err != nil {
		return nil
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	names, err := list(ctx, c, ns)
	if err != nil {
		return nil
	}
	return withPrefix(names, prefix)
}

// withPrefix keeps, in place, the names starting with prefix.
func withPrefix(names []string, prefix string) []string {
	return slices.DeleteFunc(names, func(n string) bool { return !strings.HasPrefix(n, prefix) })
}

// listed is the lister of the objects list reads: their metadata.name,
// in the order the API server lists them.
func listed(list func(context.Context, kubernetes.Interface, string) (runtime.Object, error)) lister {
	return func(ctx context.Context, c kubernetes.Interface, ns string) ([]string, error) {
		l, err := list(ctx, c, ns)
		if err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(items))
		for _, item := range items {
			m, err := meta.Accessor(item)
			if err != nil {
				return nil, err
			}
			names = append(names, m.GetName())
		}
		return names, nil
	}
}

// listNodes, listPods and listNamespaces list the names -n, watch pod and
// the node commands complete.
var (
	listNodes = listed(func(ctx context.Context, c kubernetes.Interface, _ string) (runtime.Object, error) {
		return c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	})
	listPods = listed(func(ctx context.Context, c kubernetes.Interface, ns string) (runtime.Object, error) {
		return c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	})
	listNamespaces = listed(func(ctx context.Context, c kubernetes.Interface, _ string) (runtime.Object, error) {
		return c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	})
)

// workloadTypes are the TYPE of TYPE/NAME a rollout watch and an audit
// take, by the name kubectl prints them with, and the lister of each.
var workloadTypes = map[string]lister{
	"deployment": listed(func(ctx context.Context, c kubernetes.Interface, ns string) (runtime.Object, error) {
		return c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	}),
	"statefulset": listed(func(ctx context.Context, c kubernetes.Interface, ns string) (runtime.Object, error) {
		return c.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
	}),
	"daemonset": listed(func(ctx context.Context, c kubernetes.Interface, ns string) (runtime.Object, error) {
		return c.AppsV1().DaemonSets(ns).List(ctx, metav1.ListOptions{})
	}),
}

// workloadAliases are kubectl's other spellings of workloadTypes' keys.
var workloadAliases = map[string]string{
	"deploy": "deployment", "deployments": "deployment",
	"sts": "statefulset", "statefulsets": "statefulset",
	"ds": "daemonset", "daemonsets": "daemonset",
}

// completeNodes offers the cluster's nodes not named already, for
// `drain node` and `watch node`.
func completeNodes(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		names := slices.DeleteFunc(clusterNames(flags, listNodes, toComplete), func(n string) bool { return slices.Contains(args, n) })
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completePod offers the pods of the namespace, for `watch pod NAME`.
func completePod(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return clusterNames(flags, listPods, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeWorkloads offers TYPE/ (no space after it), then the names of
// that type as TYPE/NAME; after a bare TYPE, its names. many lets more
// than one workload be named (audit); else one (the rollout watch).
func completeWorkloads(flags *genericclioptions.ConfigFlags, many bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if len(args) == 1 && !strings.Contains(args[0], "/") && !many {
			return workloadNames(flags, args[0], "", toComplete), none
		}
		if len(args) > 0 && !many {
			return nil, none
		}
		typ, name, found := strings.Cut(toComplete, "/")
		if !found {
			types := withPrefix(slices.Sorted(maps.Keys(workloadTypes)), toComplete)
			for i := range types {
				types[i] += "/"
			}
			if len(types) == 0 {
				// `watch p`: only a subcommand (cobra's) can follow, and a space after it.
				return nil, none
			}
			return types, none | cobra.ShellCompDirectiveNoSpace
		}
		names := workloadNames(flags, typ, typ+"/", name)
		return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(args, n) }), none
	}
}

// workloadNames lists the workloads of typ (or an alias), each after
// prefix, those whose name starts with toComplete.
func workloadNames(flags *genericclioptions.ConfigFlags, typ, prefix, toComplete string) []string {
	if alias, ok := workloadAliases[strings.ToLower(typ)]; ok {
		typ = alias
	}
	list, ok := workloadTypes[strings.ToLower(typ)]
	if !ok {
		return nil
	}
	names := clusterNames(flags, list, toComplete)
	for i := range names {
		names[i] = prefix + names[i]
	}
	return names
}

// kubeconfigNames offers names from the kubeconfig (of --kubeconfig when
// typed): pick chooses contexts, clusters or users. A comma-separated
// value (--contexts) is completed item by item.
func kubeconfigNames(flags *genericclioptions.ConfigFlags, pick func(raw clientcmdapi.Config) []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		raw, err := flags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := pick(raw)
		slices.Sort(names)
		return commaList(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeContexts offers the kubeconfig's contexts.
func completeContexts(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return kubeconfigNames(flags, func(raw clientcmdapi.Config) []string { return slices.Collect(maps.Keys(raw.Contexts)) })
}

// commaList completes the last item of a comma-separated value: each of
// values not listed yet that starts with it, after the items before it.
func commaList(values []string, toComplete string) []string {
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	listed := strings.Split(done, ",")
	var out []string
	for _, v := range withPrefix(values, last) {
		if !slices.Contains(listed, v) {
			out = append(out, done+v)
		}
	}
	return out
}

// completeValues offers the fixed values of an enum flag (or argument).
func completeValues(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" }), toComplete),
			cobra.ShellCompDirectiveNoFileComp
	}
}

// checkIDs are the audit's check IDs, in the catalogue's order.
func checkIDs() []string {
	var ids []string
	for _, c := range inspect.Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

// completeCheckIDs offers check IDs, comma-separated, for --skip.
func completeCheckIDs(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return commaList(checkIDs(), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeExplainID offers one check ID with its summary, for `audit
// explain ID`.
func completeExplainID(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, c := range inspect.Checks() {
		if strings.HasPrefix(c.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(c.ID, c.Summary))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerCompletions registers fns as the completion of the flags named;
// a name no flag of cmd has is a programming error, and panics in every
// test that builds the command.
func registerCompletions(cmd *cobra.Command, fns map[string]cobra.CompletionFunc) {
	for name, fn := range fns {
		if err := cmd.RegisterFlagCompletionFunc(name, fn); err != nil {
			panic(err)
		}
	}
}

// registerRootCompletions completes kubectl's flags every command takes:
// -n from the cluster, --context, --cluster and --user from the kubeconfig.
func registerRootCompletions(root *cobra.Command, flags *genericclioptions.ConfigFlags) {
	registerCompletions(root, map[string]cobra.CompletionFunc{
		"namespace": func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return clusterNames(flags, listNamespaces, toComplete), cobra.ShellCompDirectiveNoFileComp
		},
		"context": completeContexts(flags),
		"cluster": kubeconfigNames(flags, func(raw clientcmdapi.Config) []string { return slices.Collect(maps.Keys(raw.Clusters)) }),
		"user":    kubeconfigNames(flags, func(raw clientcmdapi.Config) []string { return slices.Collect(maps.Keys(raw.AuthInfos)) }),
	})
}

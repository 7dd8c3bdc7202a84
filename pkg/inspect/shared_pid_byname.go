package inspect

import (
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

var preStopKillsByNameInSharedPID = register(&Check{
	ID:       "prestop-kills-other-container",
	Field:    "shareProcessNamespace, containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "in a pod that shares its process namespace, a preStop pkill or killall signals the processes of that name in every container, not only its own",
	run:      perStoppedContainer(killByNameFinding),
	Explanation: Explanation{
		Why: "With shareProcessNamespace: true every container of the pod sees, and as root (CAP_KILL) may signal, the processes of every other container. pkill and killall pick their targets by process name, or with pkill -f by command line, among all the processes they see: a hook written to stop its own container's server also signals any process of that name in the other containers. " +
			"Every container's preStop starts when the termination starts, so such a hook stops the other container's process that many seconds into the termination (the sleeps before it), while the pod may still be an endpoint, and that container gets SIGTERM from the kubelet only after its own hook. " +
			"A process's name is its executable's; the spec shows it where a container sets command (or args naming it), not where the image's entrypoint starts it, so the check names the containers whose command matches and says when it cannot tell.",
		Fix:    "Signal the process by its pid (kill -QUIT $(cat /run/app.pid)), match it more narrowly (pkill -n, or a pattern only that process has), or drop shareProcessNamespace.",
		Source: "Kubernetes docs, \"Share Process Namespace between Containers in a Pod\" (processes are visible to, and can be signalled from, every container); man7.org/linux/man-pages/man1/pkill.1.html and killall(1) (targets chosen by name or command line); man7.org/linux/man-pages/man2/kill.2.html (permission to signal)",
	},
})

// killByNameFinding is the finding for ctr's exec preStop when it runs a
// pkill or killall: the other containers of all whose command names what
// it matches, or that the check cannot tell which processes it reaches.
func killByNameFinding(c *Check, w *Workload, ctr corev1.Container, all []corev1.Container) (Finding, bool) {
	if !sharesPID(w) || ctr.Lifecycle == nil || ctr.Lifecycle.PreStop == nil || ctr.Lifecycle.PreStop.Exec == nil {
		return Finding{}, false
	}
	stmt, names, before, exact := prestop.KillByName(ctr.Lifecycle.PreStop.Exec.Command)
	if stmt == "" || len(names) == 0 {
		return Finding{}, false
	}
	var others []string
	for _, o := range all {
		if o.Name != ctr.Name && commandNames(o, names) {
			others = append(others, o.Name)
		}
	}
	into := fmt.Sprintf("%d s", before)
	if !exact {
		into = fmt.Sprintf("at least %d s (steps of unknown length come before it)", before)
	}
	head := fmt.Sprintf("the pod shares its process namespace (shareProcessNamespace: true), so preStop's %q, %s into the termination, signals the processes of every container that match %s", cut(stmt, maxQuotedCommand), into, strings.Join(names, " "))
	if len(others) > 0 {
		msg := head + fmt.Sprintf(": container(s) %s run a command of that name, and stop then, not after their own preStop", strings.Join(others, ", "))
		return c.finding(w, ctr.Name, msg, "signal the process by its pid (kill -QUIT $(cat /run/app.pid)), or drop shareProcessNamespace"), true
	}
	if commandNames(ctr, names) {
		return Finding{}, false // its own command: the other containers' are not that name
	}
	f := c.finding(w, ctr.Name, head+": which containers' processes those are cannot be told from the spec (no container's command names them; an image's entrypoint is not in the spec)",
		"signal the process by its pid (kill -QUIT $(cat /run/app.pid)) so that it reaches only that process")
	f.Severity = SeverityInfo
	return f, true
}

// commandNames reports whether one of names (pkill's patterns, read as
// plain text) is in the base name of a word of o's command or args: the
// executable, and so the process name, where the spec shows it.
func commandNames(o corev1.Container, names []string) bool {
	for _, w := range append(slices.Clone(o.Command), o.Args...) {
		for _, f := range strings.Fields(w) {
			if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(path.Base(f), n) }) {
				return true
			}
		}
	}
	return false
}

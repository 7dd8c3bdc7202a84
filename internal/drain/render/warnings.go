package render

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// byWorkload folds the termination-audit warnings of the pods of one
// workload that say the same thing into one, naming the workload and its
// pods: the pods of a Deployment share a spec, so each of them would
// repeat the line. -o json keeps one warning a pod.
func byWorkload(r *preflight.Report) []preflight.Issue {
	owner := map[string]string{} // "namespace/pod" -> "namespace/Kind/name"
	for _, g := range r.Evict {
		for _, p := range g.Pods {
			if g.Owner.Kind != "" {
				owner[p.Namespace+"/"+p.Name] = inspect.ObjectRef{Kind: g.Owner.Kind, Namespace: g.Namespace, Name: g.Owner.Name}.String()
			}
		}
	}
	var out []preflight.Issue
	pods := map[string][]string{} // workload and message -> its pods' names
	at := map[string]int{}        // the same -> its place in out
	for _, i := range r.Warnings {
		w, ok := owner[i.Pod]
		switch {
		case i.Kind != preflight.WarningTerminationAudit:
			out = append(out, i)
			continue
		case !ok: // a pod of its own: named alone
			i.Message = i.Pod + ": " + i.Message
			out = append(out, i)
			continue
		}
		key := w + "\x00" + i.Message
		if _, seen := at[key]; !seen {
			at[key] = len(out)
			out = append(out, i)
		}
		_, name, _ := strings.Cut(i.Pod, "/")
		pods[key] = append(pods[key], name)
		out[at[key]].Message = fmt.Sprintf("%s (%s %s): %s", w, plural(len(pods[key]), "pod", "pods"), strings.Join(pods[key], ", "), i.Message)
	}
	return out
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

package timeline

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// attachExits gives each container of v its own first reported exit.
func attachExits(v *Verdict) {
	for i := range v.Containers {
		if j := slices.IndexFunc(v.Exits, func(x Exit) bool { return x.Container == v.Containers[i].Name }); j >= 0 {
			x := v.Exits[j]
			v.Containers[i].Exit = &x
		}
	}
}

// exitOrderFindings lists every container of the pod, native sidecars
// included, with its own exit, and names the one that stopped first. The
// order is the order of finishedAt, the node's clock for every container
// of the pod, serialized in whole seconds (truncated): two exits in
// different seconds are ordered, two in the same second are not, and the
// kubelet's reports arrive in no order that proves more (an exit beside a
// container still in its preStop is reported seconds late).
func exitOrderFindings(v *Verdict, l *findingList) {
	if len(v.Containers) < 2 {
		return
	}
	var seen []ContainerStop
	var parts, unseen []string
	for _, cs := range v.Containers {
		switch {
		case cs.Exit == nil:
			unseen = append(unseen, cs.Name)
		case cs.Exit.Server.IsZero():
			unseen = append(unseen, cs.Name+" (exit without finishedAt)")
		default:
			seen = append(seen, cs)
		}
	}
	// Whole seconds, as the API serializes them, even when the object
	// came with more: a finer order is not what the API shows.
	sort.SliceStable(seen, func(i, j int) bool { return seen[i].Exit.Server.Unix() < seen[j].Exit.Server.Unix() })
	for _, cs := range seen {
		kind := ""
		if cs.NativeSidecar {
			kind = " (native sidecar)"
		}
		parts = append(parts, fmt.Sprintf("%s%s at %s", cs.Name, kind, cs.Exit.Server.UTC().Format("15:04:05")))
	}
	msg := "containers by finishedAt: " + strings.Join(parts, ", ")
	if len(seen) == 0 {
		msg = "containers: no finishedAt seen"
	}
	if len(unseen) > 0 {
		msg += "; no exit seen for " + joinNames(unseen)
	}
	l.fact("%s: %s", msg, firstStopped(seen, len(unseen) > 0))
}

// firstStopped names the container that stopped first among seen (sorted
// by finishedAt), or says why it cannot be told.
func firstStopped(seen []ContainerStop, someUnseen bool) string {
	if len(seen) == 0 {
		return "which stopped first cannot be told"
	}
	first := seen[0].Exit.Server.Unix()
	var tied []string
	for _, cs := range seen {
		if cs.Exit.Server.Unix() == first {
			tied = append(tied, cs.Name)
		}
	}
	switch {
	case len(tied) > 1:
		return fmt.Sprintf("which of %s stopped first cannot be told (finishedAt is whole seconds and they share %s)", joinNames(tied), seen[0].Exit.Server.UTC().Format("15:04:05"))
	case someUnseen:
		return fmt.Sprintf("%s stopped first of those seen to exit", tied[0])
	case len(seen) == 1:
		return fmt.Sprintf("%s is the only container seen to exit", tied[0])
	}
	return fmt.Sprintf("%s stopped first", tied[0])
}

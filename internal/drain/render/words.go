package render

import (
	"cmp"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// The drain's JSON enums are kebab-case ("answer-lost", "partly-drained");
// the text output shows them with blanks ("answer lost"), as the watch
// shows its tracks, except who removed a pod, which it always said in
// words of its own.
var goneByWords = map[drain.GoneBy]string{
	drain.GoneByEviction:    "evicted",
	drain.GoneByNamespace:   "deleted by the namespace",
	drain.GoneByOther:       "deleted by another client",
	drain.GoneByLostAnswer:  "gone after an eviction whose answer was lost",
	drain.GoneByDeleteAfter: "deleted past its budget",
	drain.GoneBySurge:       "replaced by --surge's rollout",
}

// words is an enum value (a pod's state) as the text output shows it: its
// dashes blanks.
func words[T ~string](v T) string { return strings.ReplaceAll(string(v), "-", " ") }

// goneByText says who removed a pod as the text output shows it.
func goneByText(g drain.GoneBy) string {
	return cmp.Or(goneByWords[g], string(g))
}

// poolNodeText is a pool node's result as the text output shows it: a
// node deleted during the drain is "gone".
func poolNodeText(r drain.Outcome) string {
	if r == drain.OutcomeNodeGone {
		return "gone"
	}
	return words(r)
}

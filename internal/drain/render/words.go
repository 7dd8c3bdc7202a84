package render

import "github.com/kubectl-graceful/kubectl-graceful/pkg/drain"

// The drain's JSON enums are kebab-case ("answer-lost", "partly-drained");
// the text output keeps the words it always showed. Values not listed show
// as they are.
var (
	stateWords = map[drain.State]string{
		drain.StateNamespaceTerminating: "namespace terminating",
		drain.StateAnswerLost:           "answer lost",
		drain.StateUnknown:              "state unknown",
		drain.StateStopped:              "not evicted",
	}
	goneByWords = map[drain.GoneBy]string{
		drain.GoneByEviction:    "evicted",
		drain.GoneByNamespace:   "deleted by the namespace",
		drain.GoneByOther:       "deleted by another client",
		drain.GoneByLostAnswer:  "gone after an eviction whose answer was lost",
		drain.GoneByDeleteAfter: "deleted past its budget",
		drain.GoneBySurge:       "replaced by --surge's rollout",
	}
	poolNodeWords = map[drain.Outcome]string{
		drain.OutcomePartlyDrained: "partly drained",
		drain.OutcomeNodeGone:      "gone",
	}
)

// stateText is a pod state as the text output shows it.
func stateText(s drain.State) string { return wordOr(stateWords, s) }

// goneByText says who removed a pod as the text output shows it.
func goneByText(g drain.GoneBy) string { return wordOr(goneByWords, g) }

// poolNodeText is a pool node's result as the text output shows it.
func poolNodeText(r drain.Outcome) string { return wordOr(poolNodeWords, r) }

// wordOr returns v's words from m, or v itself.
func wordOr[T ~string](m map[T]string, v T) string {
	if w, ok := m[v]; ok {
		return w
	}
	return string(v)
}

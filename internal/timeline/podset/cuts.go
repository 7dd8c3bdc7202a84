package podset

import (
	"github.com/kubectl-graceful/kubectl-graceful/internal/gapcount"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// CutSentence says how often the streams' watches were cut
// (gapcount.Sentence: one cut of several watches is one cut), "" when
// none was; stalls are not cuts.
func CutSentence(gaps []timeline.Gap) string {
	var cuts []gapcount.Gap
	for _, g := range gaps {
		if !g.Stalled {
			cuts = append(cuts, gapcount.Gap{Stream: g.Stream, From: g.From, To: g.To})
		}
	}
	return gapcount.Sentence(cuts)
}

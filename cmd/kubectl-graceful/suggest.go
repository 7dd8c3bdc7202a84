package main

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/editdistance"
)

// didYouMean returns `; did you mean "x"?` for the one of known typed most
// likely meant, else "": the only one it begins (two letters or more), or
// the closest by edit distance when at most a third of its letters (two
// for short words) differ.
func didYouMean(typed string, known []string) string {
	lower := strings.ToLower(typed)
	var prefixed []string
	best, bestDist := "", -1
	for _, k := range known {
		if k == "" {
			continue
		}
		if len(lower) >= 2 && strings.HasPrefix(k, lower) {
			prefixed = append(prefixed, k)
		}
		if d := editdistance.Levenshtein(lower, strings.ToLower(k)); bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	switch {
	case len(prefixed) == 1:
		best = prefixed[0]
	case bestDist < 0 || bestDist > max(2, len(best)/3):
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// errNotOneOf refuses a flag value outside values: `--fail-on "warn" is
// not one of error, warning, info, none; did you mean "warning"?`.
func errNotOneOf(flag, value string, values ...string) error {
	return fmt.Errorf("%s %q is not one of %s%s", flag, value, strings.Join(values, ", "), didYouMean(value, values))
}

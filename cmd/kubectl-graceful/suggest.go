package main

import (
	"fmt"
	"strings"
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
		if d := editDistance(lower, strings.ToLower(k)); bestDist < 0 || d < bestDist {
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

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// errNotOneOf refuses a flag value outside values: `--fail-on "warn" is
// not one of error, warning, info, none; did you mean "warning"?`.
func errNotOneOf(flag, value string, values ...string) error {
	return fmt.Errorf("%s %q is not one of %s%s", flag, value, strings.Join(values, ", "), didYouMean(value, values))
}

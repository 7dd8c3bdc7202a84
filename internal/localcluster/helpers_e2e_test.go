package localcluster_test

import "strings"

func splitLines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

func containsWord(line, word string) bool {
	for _, f := range strings.Fields(line) {
		if f == word {
			return true
		}
	}
	return false
}

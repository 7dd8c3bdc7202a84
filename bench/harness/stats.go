package harness

import (
	"sort"
	"time"
)

// median returns the middle value of ds (the mean of the two middle ones
// for an even count), 0 for none.
func median(ds []time.Duration) time.Duration {
	return percentile(ds, 50)
}

// percentile returns the p-th percentile (0-100) of ds by linear
// interpolation between the closest ranks; 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := p / 100 * float64(len(s)-1)
	lo := int(rank)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := rank - float64(lo)
	return s[lo] + time.Duration(frac*float64(s[lo+1]-s[lo]))
}

// medianInt returns the middle value of xs (lower middle for even counts).
func medianInt(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int64(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)/2]
}

package harness

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	cases := []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(3, 1, 2), 50, 2 * time.Millisecond},
		{ms(4, 1, 3, 2), 50, 2500 * time.Microsecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 100, 11 * time.Millisecond},
		{ms(0, 100), 99, 99 * time.Millisecond},
	}
	for _, c := range cases {
		if got := percentile(c.in, c.p); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.in, c.p, got, c.want)
		}
	}
	if got := medianInt([]int64{5, 1, 9, 3}); got != 3 {
		t.Errorf("medianInt = %d, want 3 (lower middle)", got)
	}
}

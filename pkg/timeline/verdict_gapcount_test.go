package timeline

import "testing"

// One network cut ends the pod, EndpointSlices and Events watches at once:
// the verdict says one cut and three gaps, not "cut 3 time(s)". A second
// cut later is counted apart.
func TestOneCutOfThreeWatchesReadsAsOne(t *testing.T) {
	tl := terminate(t, 30, true, 6, []string{"web"}, 7000, 0, nil)
	tl.Gaps = append(tl.Gaps,
		Gap{Stream: StreamPods, From: at(8000), To: at(9000)},
		Gap{Stream: StreamEndpointSlices, From: at(8000), To: at(9400), Relisted: true},
		Gap{Stream: StreamEvents, From: at(8100), To: at(9200)})
	v := ComputeWith(tl, Options{})
	want := "the watches were cut 1 time(s): 3 gap(s) across the 3 watches (EndpointSlices, Events, pod), gaps that overlap in time counted as one cut (gaps marked above)"
	if !hasFinding(v, want) || hasFinding(v, "cut 3 time(s)") {
		t.Errorf("findings %q, want one with %q", v.Findings, want)
	}
	tl.Gaps = append(tl.Gaps, Gap{Stream: StreamPods, From: at(12000), To: at(12500)})
	if v := ComputeWith(tl, Options{}); !hasFinding(v, "the watches were cut 2 time(s): 4 gap(s)") {
		t.Errorf("a second cut apart: findings %q", v.Findings)
	}
}

package harness

import "testing"

func TestProbeBenchMetrics(t *testing.T) {
	out := []byte("BenchmarkDeliveryToLineUnderProbe-2   \t    2000\t   2349413 ns/op\t         0.3760 max-ms\t         0.04600 p99-ms\n" +
		"BenchmarkDeliveryToLine-2             \t    2000\t      8319 ns/op\t         0.7120 max-ms\t         0.04400 p99-ms\nPASS\n")
	u, b := underProbeP99.FindSubmatch(out), baseP99.FindSubmatch(out)
	if u == nil || b == nil || string(u[1]) != "0.04600" || string(b[1]) != "0.04400" {
		t.Errorf("under probe %q, base %q", u, b)
	}
	st := []byte("BenchmarkStampToArrival-2   \t    1000\t   5101022 ns/op\t         1.139 max-ms\t         0.4160 p99-ms\n")
	if m := stampP99.FindSubmatch(st); m == nil || string(m[1]) != "0.4160" {
		t.Errorf("stamp %q", m)
	}
}

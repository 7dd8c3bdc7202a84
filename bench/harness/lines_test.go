package harness

import (
	"testing"
	"time"
)

func TestLineClockLatencies(t *testing.T) {
	l := &lineClock{}
	recv := time.Now().Add(-30 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	// A line split over two writes, a replayed event, a command-made event,
	// a gap and the summary count for nothing; the one live event counts.
	for _, w := range []string{
		`{"type":"event","kind":"deletion-seen","localTime":"` + recv,
		`"}` + "\n" + `{"type":"event","kind":"phase","localTime":"` + recv + `","beforeWatch":true}` + "\n",
		`{"type":"event","kind":"delete-sent","localTime":"` + recv + `"}` + "\n",
		`{"type":"gap","localTime":"` + recv + `"}` + "\n" + `{"type":"summary","pod":"web"}` + "\n",
	} {
		if _, err := l.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	lat, err := l.latencies()
	if err != nil {
		t.Fatal(err)
	}
	if len(lat) != 1 || lat[0] < 30*time.Millisecond || lat[0] > time.Second {
		t.Errorf("latencies = %v, want one of about 30 ms", lat)
	}
	if _, err := (&lineClock{lines: []timedLine{{text: []byte("not json")}}}).latencies(); err == nil {
		t.Errorf("a non-JSON line gave no error")
	}
}

func TestP99MetricParsesGoBenchOutput(t *testing.T) {
	// One run prints both benchmarks; the watch row reads the plain one.
	out := "BenchmarkDeliveryToLineUnderProbe-2   \t    2000\t     44227 ns/op\t         9.970 max-ms\t         0.3100 p99-ms\n" +
		"BenchmarkDeliveryToLine-2   \t    2000\t     34227 ns/op\t         9.970 max-ms\t         0.1600 p99-ms\nPASS\n"
	m := baseP99.FindStringSubmatch(out)
	if m == nil || m[1] != "0.1600" {
		t.Errorf("p99 from go test -bench output = %v, want 0.1600", m)
	}
	if m := underProbeP99.FindStringSubmatch(out); m == nil || m[1] != "0.3100" {
		t.Errorf("p99 under probe = %v, want 0.3100", m)
	}
}

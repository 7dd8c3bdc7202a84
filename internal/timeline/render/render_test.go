package render_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func TestWriteLineEscapesClusterText(t *testing.T) {
	tl := &timeline.Timeline{T0: timelinetest.At(0)}
	var b bytes.Buffer
	e := timeline.Event{Recv: timelinetest.At(1234), Server: timelinetest.At(0), Track: timeline.Kubelet, Message: "Event Normal Killing: Stopping \x1b[2Jcontainer\napp"}
	if err := render.WriteLine(&b, tl, e, true); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.ContainsAny(got[:len(got)-1], "\x1b\n") {
		t.Fatalf("escape sequence or newline reached the terminal: %q", got)
	}
	for _, want := range []string{"+1234 ms", "07:00:00", "kubelet", `\x1b[2J`, `\napp`} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
}

// A live line has one clock by default, the ms column; --wide adds the
// server's time, dashes when the API records none.
func TestWriteLineBeforeT0AndEndpointWithoutServerTime(t *testing.T) {
	for wide, want := range map[bool]string{false: "    before  control plane  x\n", true: "    before  --:--:--  control plane  x\n"} {
		var b bytes.Buffer
		_ = render.WriteLine(&b, &timeline.Timeline{}, timeline.Event{Recv: timelinetest.At(5), Track: timeline.ControlPlane, Message: "x"}, wide)
		if b.String() != want {
			t.Errorf("wide %v: line before the delete request: %q, want %q", wide, b.String(), want)
		}
	}
}

// Every live line of watch pod starts with the one clock, "+N ms", and
// tells no other clock's time; --wide adds the server-time column.
func TestLiveLinesOneClockUnlessWide(t *testing.T) {
	tl := &timeline.Timeline{T0: timelinetest.At(0)}
	killing := timeline.Event{Recv: timelinetest.At(16), Server: timelinetest.At(0), Track: timeline.Kubelet, Message: "Event Normal Killing: Stopping container web", Container: "web"}
	tl.PreStop = map[string]timeline.PreStop{"web": {Has: true, Known: true, Delay: 10 * time.Second}}
	server := regexp.MustCompile(`\d\d:\d\d:\d\d|--:--:--|--------`)
	for _, wide := range []bool{false, true} {
		var b bytes.Buffer
		_ = render.WriteLine(&b, tl, killing, wide)
		_ = render.WritePreStopWait(&b, tl, killing, wide)
		_ = render.WriteGapLine(&b, tl, timeline.Gap{Stream: "pod", From: timelinetest.At(1000), Reason: "closed"}, wide)
		_ = render.WriteRequestsLine(&b, tl, timeline.RequestLine{From: timelinetest.At(100), OK: 3}, wide)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 4 {
			t.Fatalf("wide %v: want 4 lines:\n%s", wide, b.String())
		}
		for _, l := range lines {
			servers := len(server.FindAllString(l, -1))
			if !regexp.MustCompile(`^ *\+\d+ ms  `).MatchString(l) || servers != map[bool]int{false: 0, true: 1}[wide] {
				t.Errorf("wide %v: %d server times in %q", wide, servers, l)
			}
		}
	}
}

func TestGapLines(t *testing.T) {
	tl := &timeline.Timeline{T0: timelinetest.At(0)}
	var b bytes.Buffer
	_ = render.WriteGapLine(&b, tl, timeline.Gap{Stream: "pod", From: timelinetest.At(1000), Reason: "watch connection closed"}, false)
	_ = render.WriteGapLine(&b, tl, timeline.Gap{Stream: "pod", From: timelinetest.At(1000), To: timelinetest.At(2500)}, false)
	_ = render.WriteGapLine(&b, tl, timeline.Gap{Stream: "Events", From: timelinetest.At(1000), To: timelinetest.At(3000), Relisted: true}, false)
	out := b.String()
	for _, want := range []string{"+1000 ms", "GAP: pod watch lost (watch connection closed)", "+2500 ms", "resumed after 1500 ms", "GAP: Events watch re-listed after 2000 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("gap lines lack %q:\n%s", want, out)
		}
	}
}

func TestChartPlacesBothTracksOnOneAxis(t *testing.T) {
	tl := terminate(t, 45, true, 5, []string{"web"}, 6000, 0, nil)
	v := timeline.ComputeWith(tl, timeline.Options{})
	var b bytes.Buffer
	if err := render.WriteChart(&b, tl, v); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var cp, kl, win string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "control plane"):
			cp = l[15:]
		case strings.HasPrefix(l, "kubelet"):
			kl = l[15:]
		case strings.HasPrefix(l, "window"):
			win = l[15:]
		}
	}
	// end = 6020 ms over 63 columns: SIGTERM at 5020 ms is column 52, exit
	// at 6000 ms column 62, removal at 6010 ms column 62, gone column 63.
	if cp == "" || kl == "" || win == "" {
		t.Fatalf("missing lanes:\n%s", b.String())
	}
	if cp[0] != 'E' || !strings.Contains(cp, "-R") || !strings.HasSuffix(cp, "G") {
		t.Errorf("control plane lane %q", cp)
	}
	if strings.IndexRune(kl, 'T') != 52 || kl[0] != 'K' || !strings.Contains(kl, "~") || strings.IndexRune(kl, 'X') != 62 {
		t.Errorf("kubelet lane %q: want K at 0, T at 52, X at 62", kl)
	}
	if strings.Contains(win, "#") || strings.Count(win, "+") != 53 {
		t.Errorf("window lane %q: want 53 '+' and no race", win)
	}
}

func TestChartMarksRaceAndSIGKILL(t *testing.T) {
	tl := terminate(t, 5, true, 20, []string{"web"}, 5000, 137, nil)
	v := timeline.ComputeWith(tl, timeline.Options{})
	var b bytes.Buffer
	_ = render.WriteChart(&b, tl, v)
	if !strings.Contains(b.String(), "!") {
		t.Errorf("no SIGKILL mark:\n%s", b.String())
	}
}

func TestJSONLinesAndSummary(t *testing.T) {
	tl := terminate(t, 30, false, 0, []string{"web"}, 1000, 0, nil)
	tl.Gaps = []timeline.Gap{{Stream: "pod", From: timelinetest.At(100), To: timelinetest.At(300)}}
	var b bytes.Buffer
	for _, e := range tl.Events {
		if err := render.WriteJSONEvent(&b, tl, e); err != nil {
			t.Fatal(err)
		}
	}
	_ = render.WriteJSONGap(&b, tl, tl.Gaps[0])
	_ = render.WriteJSONSummary(&b, tl, timeline.ComputeWith(tl, timeline.Options{}))
	sc := bufio.NewScanner(&b)
	var types []string
	var last map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line is not one JSON object: %q: %v", sc.Text(), err)
		}
		types = append(types, m["type"].(string))
		last = m
	}
	if len(types) != len(tl.Events)+2 || types[len(types)-1] != "summary" || types[len(types)-2] != "gap" {
		t.Fatalf("types %v", types)
	}
	verdict := last["verdict"].(map[string]any)
	if verdict["risk"] != true || verdict["endpointOutMs"].(float64) != 15 || verdict["sigtermEstimatedMs"].(float64) != 20 {
		t.Errorf("summary verdict %v", verdict)
	}
	if gaps := last["gaps"].([]any); len(gaps) != 1 {
		t.Errorf("summary gaps %v", gaps)
	}
}

func TestMermaidGantt(t *testing.T) {
	tl := terminate(t, 45, true, 5, []string{"web"}, 6000, 0, nil)
	tl.Pod = "web:1#x"
	var b bytes.Buffer
	if err := render.WriteMermaid(&b, tl, timeline.ComputeWith(tl, timeline.Options{})); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"gantt\n", "dateFormat x", "section control plane", "section kubelet", "preStop :20, 5000ms", "SIGTERM (estimated) +5020 ms :milestone, 5020, 0ms", "margin 5005 ms :done, 15, 5005ms", "title Termination of pod shop/web 1 x"} {
		if !strings.Contains(out, want) {
			t.Errorf("mermaid lacks %q:\n%s", want, out)
		}
	}
	race := terminate(t, 30, false, 0, []string{"web"}, 1000, 0, nil)
	race.Events[len(race.Events)-1].Recv = timelinetest.At(1020)
	b.Reset()
	_ = render.WriteMermaid(&b, race, timeline.ComputeWith(race, timeline.Options{}))
	if !strings.Contains(b.String(), "section verdict") {
		t.Errorf("no verdict section:\n%s", b.String())
	}
}

func TestVerdictTextEscapes(t *testing.T) {
	tl := terminate(t, 30, false, 0, nil, 1000, 0, nil)
	tl.Pod = "evil\x1b]0;title\x07"
	var b bytes.Buffer
	_ = render.WriteVerdict(&b, tl, timeline.ComputeWith(tl, timeline.Options{}))
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), "SAFE: the pod is not behind any Service") {
		t.Errorf("verdict: %q", b.String())
	}
}

// -o json writes [] for every list, never null, whatever the timeline: an
// empty one, a normal one, one with a stall.
func TestJSONSummaryHasNoNull(t *testing.T) {
	stalled := terminate(t, 30, true, 5, []string{"web"}, 6000, 0, nil)
	stalled.Gaps = []timeline.Gap{{Stream: "Events", From: timelinetest.At(0), To: timelinetest.At(3000), Stalled: true, Reason: "Killing arrived late"}}
	for name, tl := range map[string]*timeline.Timeline{
		"empty":        {Namespace: "shop", Pod: "web-0"},
		"not behind":   terminate(t, 30, false, 0, nil, 1000, 0, nil),
		"with stall":   stalled,
		"two Services": terminate(t, 30, true, 5, []string{"web", "web-internal"}, 6000, 0, nil),
	} {
		for _, v := range []timeline.Verdict{timeline.ComputeWith(tl, timeline.Options{}), {}} {
			var b bytes.Buffer
			if err := render.WriteJSONSummary(&b, tl, v); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "null") {
				t.Errorf("%s: null in %s", name, b.String())
			}
		}
	}
	var b bytes.Buffer
	_ = render.WriteJSONSummary(&b, stalled, timeline.ComputeWith(stalled, timeline.Options{}))
	if !strings.Contains(b.String(), `"stalled":true`) {
		t.Errorf("the stall is not marked in the summary's gaps: %s", b.String())
	}
}

// Lists in the verdict's text are names separated by commas, never Go's
// slice form.
func TestVerdictTextListsNames(t *testing.T) {
	tl := terminate(t, 30, true, 5, []string{"web", "web-internal"}, 6000, 0, nil)
	var b bytes.Buffer
	if err := render.WriteVerdict(&b, tl, timeline.ComputeWith(tl, timeline.Options{})); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "[") || !strings.Contains(out, "Services: web, web-internal") {
		t.Errorf("verdict:\n%s", out)
	}
}

// A 1 MB Event message is cut on the --wide terminal line, saying how
// much is left, and 5,000 repeats of one Event print a handful of lines,
// the count whole though the line fits 120 columns; -o json keeps every
// byte and every repeat.
func TestLinesAreBounded(t *testing.T) {
	tl := &timeline.Timeline{T0: time.Now()}
	huge := strings.Repeat("x", 1<<20)
	var b bytes.Buffer
	p := &render.LinePrinter{W: &b, Wide: true}
	p.Event(tl, timeline.Event{Recv: tl.T0, Kind: timeline.KindOtherEvent, Message: "Event Warning Huge: " + huge})
	line := b.String()
	if len(line) > render.MaxLineMessage+200 || !strings.Contains(line, "more characters; -o json has the whole text") {
		t.Errorf("a 1 MB message gave a line of %d bytes: %.300s", len(line), line)
	}
	b.Reset()
	p = &render.LinePrinter{W: &b}
	for i := 1; i <= 5000; i++ {
		p.Event(tl, timeline.Event{Recv: tl.T0, Kind: timeline.KindUnhealthy, Message: fmt.Sprintf("Event Warning Unhealthy: Readiness probe failed (x%d)", i)})
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if last := lines[len(lines)-1]; len(lines) > 15 || !strings.HasSuffix(last, "[seen 5000 times; repeats folded]") || len([]rune(last)) > render.LineWidth {
		t.Errorf("5,000 repeats gave %d lines, the last %q", len(lines), lines[len(lines)-1])
	}
	var j bytes.Buffer
	if err := render.WriteJSONEvent(&j, tl, timeline.Event{Recv: tl.T0, Kind: timeline.KindOtherEvent, Message: huge}); err != nil || !strings.Contains(j.String(), huge) {
		t.Errorf("-o json does not keep the whole message (%v)", err)
	}
}

// A stall of a connected watch is printed as a STALL line naming the
// watch and why its change was late.
func TestWriteGapLineStall(t *testing.T) {
	tl := &timeline.Timeline{T0: timelinetest.At(0)}
	g := timeline.Gap{Stream: "Events", Stalled: true, From: timelinetest.At(0), To: timelinetest.At(3500),
		Reason: "Killing arrived 3500 ms after the server's time for it"}
	var b bytes.Buffer
	if err := render.WriteGapLine(&b, tl, g, true); err != nil {
		t.Fatal(err)
	}
	if want := "STALL: Events watch connected but late: Killing arrived 3500 ms after the server's time for it"; !strings.Contains(b.String(), want) {
		t.Errorf("stall line %q lacks %q", b.String(), want)
	}
}

// The verdict's headline: a risk is never called SAFE; a pod that was its
// Service's last ready endpoint and stopped serving in time is SAFE,
// saying that its Service had no other ready endpoint.
func TestWriteVerdictHeadlines(t *testing.T) {
	tl := &timeline.Timeline{T0: timelinetest.At(0), Namespace: "shop", Pod: "web-1"}
	for _, c := range []struct {
		v          timeline.Verdict
		want, bans string
	}{
		{timeline.Verdict{Risk: true, BehindService: true, Findings: []string{"window too short"}}, "RISK: requests can fail", "SAFE"},
		{timeline.Verdict{BehindService: true, NoReadyEndpoint: []string{"web"}}, "SAFE: the pod stopped receiving traffic before it was told to stop (its Service had no other ready endpoint", "RISK"},
	} {
		var b bytes.Buffer
		if err := render.WriteVerdict(&b, tl, c.v); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); !strings.Contains(out, c.want) || strings.Contains(out, c.bans) {
			t.Errorf("verdict %+v:\n%s\nwant %q, not %q", c.v, out, c.want, c.bans)
		}
	}
}

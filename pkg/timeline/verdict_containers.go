package timeline

import (
	"fmt"
	"time"
)

// ContainerStop is when one container was told to stop.
type ContainerStop struct {
	Name string `json:"name"`
	// NativeSidecar marks an initContainer with restartPolicy Always: the
	// kubelet stops it after every regular container has exited, so it
	// never stops before the app.
	NativeSidecar bool `json:"nativeSidecar,omitempty"`
	// PreStop is the hook as the spec and the Events show it: "none",
	// "delay" (PreStopDelayMs says how long), "unknown-duration" or
	// "failed".
	PreStop PreStopHook `json:"preStop"`
	// PreStopDelayMs is the hook's delay from the spec when PreStop is
	// "delay".
	PreStopDelayMs *int64 `json:"preStopDelayMs,omitempty"`
	// KillingMs is its first Killing event; nil when none was seen.
	KillingMs *int64 `json:"killingMs,omitempty"`
	// SigtermMs is its estimated SIGTERM; nil when its hook's duration is
	// unknown, and for native sidecars.
	SigtermMs *int64 `json:"sigtermEstimatedMs,omitempty"`
	// PreStopAbandoned marks a preStop that outlasts the grace period:
	// the kubelet stops waiting for it when the grace period runs out and
	// only then sends SIGTERM, with its minimum of 2 s before SIGKILL
	// (kuberuntime_container.go: executePreStopHook, killContainer's
	// minimumGracePeriodInSeconds).
	PreStopAbandoned bool `json:"preStopAbandoned,omitempty"`
	// StoppedBeforeApp marks a regular container without preStop that got
	// SIGTERM at once while another container still slept in its preStop
	// (a proxy such as istio-proxy in front of the app).
	StoppedBeforeApp bool `json:"stoppedBeforeApp,omitempty"`
	// Exit is its first reported exit; nil when none was seen.
	Exit *Exit `json:"exit,omitempty"`
}

// killingFacts returns, per container, the first Killing (ms since T0; an
// event seen at the watch's start counts as 0), the first
// FailedPreStopHook before the grace deadline (failed: a hook that failed
// at once) and the first at or after it (abandoned: the kubelet's report
// of a hook it cut short when the grace period ran out), and the first
// Killing of all. An event naming no container is about all regular
// containers (one Killing for the pod).
func killingFacts(tl *Timeline, evs []Event) (killing, failed, abandoned map[string]int64, first *int64) {
	killing, failed, abandoned = map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, e := range evs {
		ms, _ := tl.Ms(e.Recv)
		if e.Initial {
			ms = 0
		}
		var into map[string]int64
		switch e.Kind {
		case KindKilling:
			if first == nil {
				first = new(ms)
			}
			into = killing
		case KindPreStopFailed:
			into = failed
			if tl.GracePeriodSeconds > 0 && ms >= tl.deadline() {
				into = abandoned
			}
		default:
			continue
		}
		cs := tl.Containers
		if e.Container != "" {
			cs = []string{e.Container}
		}
		for _, c := range cs {
			if _, ok := into[c]; !ok {
				into[c] = ms
			}
		}
	}
	return killing, failed, abandoned, first
}

// eventLead is how long before the real SIGTERM the Event that dates it
// can arrive: the kubelet records Killing, then signals through the
// runtime, and the Event's write and the signal are two paths (measured on
// a real kubelet: 22 ms early at most over 14 deletions, then 94 ms on an
// idle machine and 90 ms for a FailedPreStopHook in CI). It arrives late
// by more the busier the API server is (148 ms in a CI run), so the
// estimate's lower bound is the request itself, not the Event
// (docs/real-node.md). The latest bound is capped at the reported exit.
const eventLead = 250 * time.Millisecond

// execHookSlack is how much longer than its sleep an exec preStop hook can
// keep SIGTERM back: the exec into the container itself (23-31 ms on an
// idle real node), bounded generously for a busy one.
const execHookSlack = 250 * time.Millisecond

// stopOf estimates when regular container c gets SIGTERM, with bounds on
// the real moment (ms since the request): its Killing (or the request when
// none was seen) plus its preStop delay from the spec. SIGTERM cannot come
// before the request plus that delay, nor more than eventLead after the
// Killing Event arrived plus the delay (execHookSlack more for an exec
// hook). A hook that failed is failedHookStop's (failedAt holds only
// failures before the deadline: killingFacts). ok is false when the hook's
// duration cannot be read.
func stopOf(tl *Timeline, c string, killing, failedAt, exitAt map[string]int64) (at, delay, earliest, latest int64, b basis, ok bool) {
	base, b := int64(0), basis{SigtermFromRequest, "the delete request (no Killing event seen)"}
	if k, seen := killing[c]; seen {
		base, b = k, basis{SigtermFromKilling, fmt.Sprintf("Killing at %+d ms", k)}
	}
	// SIGTERM follows the request; a Killing seen before T0 (T0 being
	// when this watch saw the deletion) moves that floor earlier.
	floor := int64(0)
	if base < 0 {
		floor = base - eventLead.Milliseconds()
	}
	ps := tl.PreStop[c]
	if f, failed := failedAt[c]; failed {
		return failedHookStop(tl, c, base, floor, f, exitAt)
	}
	switch {
	case !ps.Known:
		return 0, 0, 0, 0, basis{}, false
	case ps.Has:
		d := ps.Delay.Milliseconds()
		slack := eventLead.Milliseconds()
		if tl.ExecPreStop[c] {
			slack += execHookSlack.Milliseconds()
		}
		text := fmt.Sprintf("%s + preStop %s", b.text, ps.Delay)
		if outlastsGrace(tl, c) {
			// The kubelet waits for the hook as long as the grace period,
			// then sends SIGTERM (executePreStopHook).
			d = tl.deadline()
			text = fmt.Sprintf("%s + the grace period %d s, when the kubelet abandons the preStop of %s", b.text, tl.GracePeriodSeconds, ps.Delay)
		}
		return base + d, d, floor + d, beforeExit(base+d+slack, floor+d, exitAt[c]), basis{b.from, text}, true
	}
	return base, 0, floor, beforeExit(base+eventLead.Milliseconds(), floor, exitAt[c]), basis{b.from, b.text + ", no preStop"}, true
}

// beforeExit caps SIGTERM's latest bound at the container's reported exit
// (x ms, 0 when none was seen): the process ends after SIGTERM. It never
// goes below earliest.
func beforeExit(latest, earliest, x int64) int64 {
	if x > 0 && x < latest {
		return max(x, earliest)
	}
	return latest
}

// exitsOf returns, per container, the first reported exit in ms since T0.
func exitsOf(tl *Timeline, evs []Event) map[string]int64 {
	out := map[string]int64{}
	for _, e := range evs {
		if e.Kind == KindContainerExit {
			if _, seen := out[e.Container]; !seen {
				ms, _ := tl.Ms(e.Recv)
				out[e.Container] = ms
			}
		}
	}
	return out
}

// PreStopHook is what a container's preStop hook did, as the spec and the
// Events show it. The values appear in -o json as "preStop".
type PreStopHook string

// The states of a preStop hook.
const (
	PreStopNone    PreStopHook = "none"             // no hook
	PreStopDelay   PreStopHook = "delay"            // a hook whose delay the spec tells
	PreStopUnknown PreStopHook = "unknown-duration" // a hook whose length the spec does not tell
	PreStopFailed  PreStopHook = "failed"           // FailedPreStopHook was seen
)

// containerStop is what the spec and the Events tell of container c
// (a native sidecar when native): its hook (failed when in failed) and
// its first Killing.
func containerStop(tl *Timeline, c string, native bool, killing, failed map[string]int64) ContainerStop {
	cs := ContainerStop{Name: c, NativeSidecar: native}
	_, hookFailed := failed[c]
	if k, seen := killing[c]; seen {
		cs.KillingMs = new(k)
	}
	switch ps := tl.PreStop[c]; {
	case hookFailed:
		cs.PreStop = PreStopFailed
	case !ps.Has:
		cs.PreStop = PreStopNone
	case !ps.Known:
		cs.PreStop = PreStopUnknown
	default:
		cs.PreStop, cs.PreStopDelayMs = PreStopDelay, new(ps.Delay.Milliseconds())
	}
	return cs
}

// preStopText is the hook in the words of the findings: "none", its delay
// ("5s"), "unknown duration" or "failed".
func preStopText(ps PreStop, failed bool) string {
	switch {
	case failed:
		return "failed"
	case !ps.Has:
		return "none"
	case !ps.Known:
		return "unknown duration"
	}
	return ps.Delay.String()
}

// sigtermFacts fills KillingMs, SigtermMs, StopMs, StopContainer, the
// preStop facts and Containers; the earliest SIGTERM counts
// (docs/watch-verdict.md, "The container the verdict rests on"). A
// FailedPreStopHook reported once a preStop outlasted the grace period is
// the kubelet abandoning the hook, not a hook that failed at once.
func sigtermFacts(tl *Timeline, evs []Event, exits map[string]int64, v *Verdict) {
	killing, failed, abandoned, first := killingFacts(tl, evs)
	v.abandonReports = abandoned
	v.KillingMs, v.PreStopFailed = first, len(failed) > 0
	for _, c := range tl.Containers {
		_, hookFailed := failed[c]
		cs := containerStop(tl, c, false, killing, failed)
		at, delay, earliest, latest, b, ok := stopOf(tl, c, killing, failed, exits)
		if ok {
			cs.SigtermMs = new(at)
			if !hookFailed && outlastsGrace(tl, c) {
				cs.PreStopAbandoned, v.PreStopAbandoned = true, true
			}
			if v.StopMs == nil || at < *v.StopMs {
				v.StopMs, v.StopContainer, v.PreStopDelayMs = new(at), c, delay
				v.SigtermMs, v.SigtermBasis, v.SigtermBasisText = cs.SigtermMs, b.from, b.text
				v.SigtermEarliestMs, v.SigtermLatestMs = new(earliest), new(latest)
			}
		}
		v.Containers = append(v.Containers, cs)
	}
	boundUnknownHooks(tl, killing, failed, exits, v)
	markStoppedBeforeApp(tl, v)
	for _, c := range tl.NativeSidecars {
		v.Containers = append(v.Containers, containerStop(tl, c, true, killing, failed))
	}
}

// appInPreStop returns the regular container that sleeps longest in its
// preStop (a hook of unknown duration counts as sleeping); ok is false
// when no container's preStop delays its SIGTERM.
func appInPreStop(tl *Timeline, v *Verdict) (app ContainerStop, ok bool) {
	for _, cs := range v.Containers {
		ps := tl.PreStop[cs.Name]
		if cs.NativeSidecar || !ps.Has || cs.PreStop == PreStopFailed || (ps.Known && ps.Delay == 0) {
			continue
		}
		if !ok || !ps.Known || (tl.PreStop[app.Name].Known && ps.Delay > tl.PreStop[app.Name].Delay) {
			app, ok = cs, true
		}
	}
	return app, ok
}

// markStoppedBeforeApp flags the regular containers without preStop that
// get SIGTERM at once while the app still sleeps in its preStop: the app
// keeps serving through a proxy that is draining or gone. Native sidecars
// are stopped after the app and never flagged.
func markStoppedBeforeApp(tl *Timeline, v *Verdict) {
	app, ok := appInPreStop(tl, v)
	if !ok {
		return
	}
	for i := range v.Containers {
		cs := &v.Containers[i]
		if !cs.NativeSidecar && cs.Name != app.Name && cs.PreStop == PreStopNone {
			cs.StoppedBeforeApp = true
		}
	}
}

// outlastsGrace reports whether the preStop of container c, of known
// length, lasts as long as the grace period or longer: the kubelet then
// abandons it when the grace period runs out.
func outlastsGrace(tl *Timeline, c string) bool {
	ps := tl.PreStop[c]
	return tl.GracePeriodSeconds > 0 && ps.Has && ps.Known && ps.Delay.Milliseconds() >= tl.deadline()
}

// failedHookStop places SIGTERM for container c whose preStop hook failed
// before the deadline (FailedPreStopHook Event at f ms). The kubelet
// records the Event and then stops the container (kuberuntime
// executePreStopHook, then StopContainer), but the Event's write and the
// CRI's signal are two paths: on an idle node the Event arrived within 7 ms
// of the app's own SIGTERM, on a loaded CI node 90 ms before it. The
// estimate is the Event; the only sure latest bound is the container's
// reported exit (the process ends after SIGTERM), or the grace deadline
// (SIGKILL) when no exit was seen.
func failedHookStop(tl *Timeline, c string, base, floor, f int64, exitAt map[string]int64) (at, delay, earliest, latest int64, b basis, ok bool) {
	b = basis{SigtermFromFailedHook, fmt.Sprintf("FailedPreStopHook at %+d ms", f)}
	latest, until := tl.deadline(), fmt.Sprintf("the grace deadline at %+d ms", tl.deadline())
	if x, exited := exitAt[c]; exited {
		latest, until = x, fmt.Sprintf("the exit reported at %+d ms", x)
		if x < f {
			b = basis{SigtermFromExit, fmt.Sprintf("the exit reported at %+d ms, before FailedPreStopHook at %+d ms", x, f)}
		}
	} else if tl.GracePeriodSeconds <= 0 {
		latest, until = f+eventLead.Milliseconds(), fmt.Sprintf("%+d ms", f+eventLead.Milliseconds())
	}
	latest = max(latest, base)
	at = min(f, latest)
	return at, 0, floor, latest, basis{b.from, fmt.Sprintf("%s: the hook failed, SIGTERM came between the request and %s", b.text, until)}, true
}

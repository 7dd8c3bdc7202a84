package fix

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// WorkloadPlan is the change to one workload's pod template: the preStop
// hooks that change and the grace period that covers them.
type WorkloadPlan struct {
	Object inspect.ObjectRef
	Source *inspect.Source
	// PreStops are the containers whose preStop hook changes.
	PreStops []PreStopChange
	// GraceSeconds is the new terminationGracePeriodSeconds (seconds), nil
	// when it stays; GraceFrom is the value before (30, the API default,
	// when unset).
	GraceSeconds *int64
	GraceFrom    int64
	// Moves are the fields written in a container that go to the pod
	// spec.
	Moves []FieldMove
	// Fixes are the findings this change resolves.
	Fixes []inspect.Finding
}

// PreStopChange sets one container's preStop hook to a delay of Seconds:
// the native sleep action (Native) or exec ["sleep", "N"].
type PreStopChange struct {
	Container string
	// Init marks a restartable init container (a sidecar).
	Init    bool
	Seconds int64
	Native  bool
	// FromHow (a prestop.How* constant) and FromSeconds describe the hook
	// before the change.
	FromHow     string
	FromSeconds int64
	// note says why the change is not what was asked for (an exec sleep
	// where the target takes no native one).
	note string
}

// containerWants collects what a container's findings ask of its preStop.
// A field-newer-than-target finding on a native sleep asks nothing of its
// own: planPreStop writes an exec sleep wherever the target does not take
// the native one.
type containerWants struct {
	floor, noShell bool
	// floorSeconds is a floor longer than Options.PreStopFloorSeconds a
	// finding asks for (inspect.Finding.PreStopSeconds), 0 for none.
	floorSeconds int64
	findings     []inspect.Finding
}

// planWorkload adds the combined change for w's findings fs.
func (p *Plan) planWorkload(w *inspect.Workload, fs []inspect.Finding, opts Options, names map[string]bool) {
	wp := &WorkloadPlan{Object: w.Object, Source: w.Source, GraceFrom: podspec.GracePeriod(w.Template.Spec)}
	wants := map[string]*containerWants{}
	want := func(name string) *containerWants {
		if wants[name] == nil {
			wants[name] = &containerWants{}
		}
		return wants[name]
	}
	needGrace, graceZeroFixed := false, false
	var unknown []inspect.Finding
	for _, f := range fs {
		switch f.Check {
		case checkMissingPreStop, checkPreStopTooShort:
			cw := want(f.Container)
			cw.floor, cw.floorSeconds = true, max(cw.floorSeconds, f.PreStopSeconds)
		case checkPreferNativeSleep: // planPreStop writes the native sleep wherever the target takes it
		case checkSleepBinaryMissing:
			want(f.Container).noShell = true
		case checkFieldNewerThanTarget:
			if !execSleepRemoves(inspect.UnsupportedFields(opts.Version, w.Template.Spec, f.Container)) {
				p.manual(f, reasonTargetField)
				continue
			}
			want(f.Container)
		case checkPreStopExceedsGrace, checkShutdownBudget, checkGracePeriodZero:
			needGrace = true
			graceZeroFixed = graceZeroFixed || f.Check == checkGracePeriodZero
			wp.Fixes = append(wp.Fixes, f)
			continue
		case checkPDBMissing:
			p.planNewPDB(w, f, opts, names)
			continue
		case checkGracePeriodLong:
			p.manual(f, reasonNeverLowerGrace)
			continue
		case checkUnknownField:
			unknown = append(unknown, f)
			continue
		default:
			p.manual(f, "")
			continue
		}
		want(f.Container).findings = append(want(f.Container).findings, f)
	}
	p.planMovesOf(w, wp, unknown)
	graceZeroKept := wp.GraceFrom == 0 && !graceZeroFixed
	var longest int64
	for i, c := range podspec.TerminatingContainers(w.Template.Spec) {
		// As the audit reads it: a `kill -SIG 1` that the pod's pause
		// process ignores stops nothing.
		d, known, how := prestop.DurationInPod(c, ptr.Deref(w.Template.Spec.ShareProcessNamespace, false))
		if !known {
			d = 0
		}
		if cw := wants[c.Name]; cw != nil {
			ch, reason := planPreStop(c, d, how, cw, opts)
			if reason == "" && graceZeroKept {
				reason = reasonGraceZeroSuppressed
			}
			if reason != "" {
				for _, f := range cw.findings {
					p.manual(f, reason)
				}
				ch = nil
			} else {
				wp.Fixes = append(wp.Fixes, cw.findings...)
			}
			if ch != nil {
				ch.Init = i >= len(w.Template.Spec.Containers)
				wp.PreStops = append(wp.PreStops, *ch)
				d = ch.Seconds
			}
		}
		longest = max(longest, d)
	}
	if needGrace || len(wp.PreStops) > 0 {
		if g := longest + shutdownSeconds(w, opts) + GraceMarginSeconds; g > wp.GraceFrom {
			wp.GraceSeconds = &g
		}
	}
	if len(wp.PreStops) > 0 || wp.GraceSeconds != nil || len(wp.Moves) > 0 {
		p.Workloads = append(p.Workloads, wp)
	}
}

// planPreStop returns the preStop change for a container whose hook now
// lasts d seconds (read as how), or the reason there is no mechanical one.
// A nil change with no reason means the hook already does what is asked.
func planPreStop(c corev1.Container, d int64, how string, cw *containerWants, opts Options) (*PreStopChange, string) {
	target := d
	if cw.floor {
		target = max(target, opts.PreStopFloorSeconds, cw.floorSeconds)
	}
	native := opts.Version.AtLeast(1, 30)
	ch := &PreStopChange{Container: c.Name, Seconds: target, Native: native, FromHow: how, FromSeconds: d}
	switch how {
	case prestop.HowNativeSleep:
		if native && (target > 0 || opts.Version.AtLeast(1, 33)) {
			if target == d {
				return nil, ""
			}
			return ch, ""
		}
		// The target does not take this native sleep: whatever the
		// findings ask, what is written is an exec sleep, and it says why.
		if cw.noShell || prestop.LacksShell(c.Image) {
			return nil, reasonNoSleepBelowNative
		}
		ch.Native = false
		ch.note = "Kubernetes " + opts.Version.String() + " does not take lifecycle.preStop.sleep"
		if native {
			ch.note += ".seconds: 0"
		}
		return ch, ""
	case prestop.HowNone:
		if target == 0 {
			return nil, reasonZeroFloor
		}
		if !native && prestop.LacksShell(c.Image) {
			return nil, reasonNoSleepBelowNative
		}
		return ch, ""
	case prestop.HowExecSleep:
		if native {
			if target == 0 && !opts.Version.AtLeast(1, 33) {
				return nil, reasonZeroSleepUnsupported
			}
			return ch, ""
		}
		if cw.noShell || prestop.LacksShell(c.Image) {
			return nil, reasonNoSleepBelowNative
		}
		if target == d {
			return nil, ""
		}
		return ch, ""
	case prestop.HowExecStopsFirst:
		return nil, reasonStopsFirst
	}
	return nil, reasonScriptHook
}

// execSleepRemoves reports whether replacing a native preStop sleep by an
// exec sleep removes every one of fields (inspect.UnsupportedFields): the
// native sleep and its 0 s form, not a native sidecar.
func execSleepRemoves(fields []string) bool {
	return len(fields) > 0 && !slices.ContainsFunc(fields, func(f string) bool { return !strings.HasPrefix(f, "lifecycle.preStop.sleep") })
}

package timeline

// Window is how the verdict judged the time between the pod leaving the
// traffic and being told to stop (Verdict.Window). Its values appear in
// -o json as "window"; every watch (pod, rollout, node, drain --watch)
// counts a pod as raced or short from it, so they agree.
type Window string

// The judgements of a pod's window.
const (
	// WindowRace: the pod was told to stop before it left the traffic
	// (a negative window); requests routed to it meanwhile fail.
	WindowRace Window = "race"
	// WindowTooShort: told to stop sooner than --propagation after the
	// delete request (Verdict.ShortByMs), or with no preStop delay at all,
	// and not before it left the traffic (after it, or in an order the API
	// cannot tell): the data plane may still send it requests.
	WindowTooShort Window = "too-short"
	// WindowUnknown: the API cannot tell whether the pod had --propagation
	// after it left the traffic (a preStop hook of unknown length).
	WindowUnknown Window = "unknown"
	// WindowMet: told to stop at least --propagation after the request,
	// after the pod left the traffic.
	WindowMet Window = "met"
)

// Raced reports whether v judged a race: the pod was told to stop before
// it left the traffic. A pod SIGKILLed, or whose race cannot be told
// (CannotTell), is neither raced nor short.
func (v *Verdict) Raced() bool { return v.Window == WindowRace && !v.CannotTell }

// WindowShort reports whether v judged the window too short (not a race):
// ShortByMs, when set, says by how much.
func (v *Verdict) WindowShort() bool { return v.Window == WindowTooShort && !v.CannotTell }

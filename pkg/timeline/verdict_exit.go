package timeline

import (
	"cmp"
	"fmt"
	"time"
)

// exitReportLag is how far past finishedAt's second a report may come and
// still date the exit: later ones are dated by finishedAt's bounds, which
// hold whatever the lag. The kubelet writes an exit once it has stopped
// the pod's sandbox too, up to about 1 s after the process ended on this
// project's real nodes (docs/watch.md, the container exit row), so a
// normal report may be dated by those bounds: never wrongly.
const exitReportLag = 300 * time.Millisecond

// exitFact says when container exit x happened. The report's time is the
// process's end plus the kubelet's lag, except when the kubelet wrote the
// exit later, with another container's change (a container ended by its
// own preStop while another still sleeps in its own): its finishedAt then
// tells. finishedAt and the request's server time (deletionTimestamp minus
// the grace period) are whole seconds, so the process ended within 1 s of
// their difference; a report later than that plus the lag is a late one.
func exitFact(tl *Timeline, x Exit) string {
	finished := x.Server.UTC().Format("15:04:05")
	if !x.Server.IsZero() && !tl.RequestServer.IsZero() {
		ms, second := x.Server.Sub(tl.RequestServer).Milliseconds(), time.Second.Milliseconds()
		if x.Ms > ms+second+exitReportLag.Milliseconds() {
			return fmt.Sprintf("container %s exited %d between %+d and %+d ms by its finishedAt (%s, whole seconds), reported only at %+d ms, with a later status of the pod: %s",
				x.Container, x.Code, max(ms-second, 0), ms+second, finished, x.Ms, cmp.Or(x.Meaning, "-"))
		}
	}
	return fmt.Sprintf("container %s exited %d at %+d ms as reported by the kubelet, up to about 1 s after the process ended (finishedAt %s, whole seconds): %s",
		x.Container, x.Code, x.Ms, finished, cmp.Or(x.Meaning, "-"))
}

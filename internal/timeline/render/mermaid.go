package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// mermaidText makes cluster text safe inside a Mermaid gantt task name:
// ':' and '#' end or comment the name, ';' and newlines end the line, and
// control characters are escaped for the terminal it may be printed on.
func mermaidText(s string) string {
	return termsafe.Escape(strings.NewReplacer(":", " ", "#", " ", ";", ",", "\n", " ", "\r", " ").Replace(s))
}

// WriteMermaid writes a Mermaid gantt chart of the timeline, for Markdown
// incident reports. Times are milliseconds since the delete request, drawn
// as dates from the Unix epoch (dateFormat x) so the axis reads seconds.
func WriteMermaid(w io.Writer, tl *timeline.Timeline, v timeline.Verdict) error {
	var b strings.Builder
	writeMermaidHead(&b, fmt.Sprintf("Termination of pod %s/%s", mermaidText(tl.Namespace), mermaidText(tl.Pod)), chartSpan(tl, v))
	b.WriteString("    section control plane\n")
	b.WriteString("    delete requested :milestone, 0, 0ms\n")
	if v.BehindService && v.EndpointOutMs != nil {
		fmt.Fprintf(&b, "    endpoint ready :active, 0, %dms\n", max(*v.EndpointOutMs, 1))
		fmt.Fprintf(&b, "    %s %+d ms :milestone, %d, 0ms\n", trafficEndLabel(v), *v.EndpointOutMs, *v.EndpointOutMs)
	}
	for _, e := range inOrder(tl) {
		ms, ok := tl.Ms(e.Recv)
		if !ok || ms < 0 {
			continue
		}
		switch e.Kind {
		case timeline.KindEndpointRemoved:
			fmt.Fprintf(&b, "    %s %+d ms :milestone, %d, 0ms\n", mermaidText("removed from "+e.Slice), ms, ms)
		case timeline.KindPodGone:
			fmt.Fprintf(&b, "    object gone %+d ms :milestone, %d, 0ms\n", ms, ms)
		}
	}
	b.WriteString("    section kubelet\n")
	writeMermaidKubelet(&b, v)
	writeMermaidWindow(&b, "    section verdict\n", v, v.Raced(), v.WindowShort())
	writeMermaidRequests(&b, v.Requests)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMermaidWindow draws, after head, the window of v between the
// endpoint leaving and the app told to stop, when v has one, as the
// verdict judged it (one rule, pkg/timeline's): a race and a window too
// short are risks (crit), a negative window judged neither an order
// unknown, any other a margin.
func writeMermaidWindow(b *strings.Builder, head string, v timeline.Verdict, raced, short bool) {
	if v.WindowMs == nil || !v.BehindService || v.EndpointOutMs == nil || v.StopMs == nil {
		return
	}
	b.WriteString(head)
	windowMs := *v.WindowMs
	from, to := min(*v.EndpointOutMs, *v.StopMs), max(*v.EndpointOutMs, *v.StopMs)
	switch {
	case raced:
		fmt.Fprintf(b, "    race window %d ms :crit, %d, %dms\n", -windowMs, from, max(to-from, 1))
	case short:
		fmt.Fprintf(b, "    window too short %d ms :crit, %d, %dms\n", windowMs, from, max(to-from, 1))
	case windowMs < 0:
		// Neither judged: the order of the two could not be told.
		fmt.Fprintf(b, "    window %d ms, order unknown :active, %d, %dms\n", windowMs, from, max(to-from, 1))
	default:
		fmt.Fprintf(b, "    margin %d ms :done, %d, %dms\n", windowMs, from, max(to-from, 1))
	}
}

func writeMermaidKubelet(b *strings.Builder, v timeline.Verdict) {
	if v.KillingMs != nil {
		fmt.Fprintf(b, "    Killing %+d ms :milestone, %d, 0ms\n", *v.KillingMs, *v.KillingMs)
		if v.StopMs != nil && *v.StopMs > *v.KillingMs {
			fmt.Fprintf(b, "    preStop :%d, %dms\n", *v.KillingMs, *v.StopMs-*v.KillingMs)
		}
	}
	if v.SigtermMs != nil {
		fmt.Fprintf(b, "    SIGTERM (estimated) %+d ms :milestone, %d, 0ms\n", *v.SigtermMs, *v.SigtermMs)
	}
	for _, x := range v.Exits {
		tag := ""
		if x.Code == 137 {
			tag = "crit, "
		}
		if v.StopMs != nil && x.Ms > *v.StopMs {
			fmt.Fprintf(b, "    %s shutting down :%s%d, %dms\n", mermaidText(x.Container), tag, *v.StopMs, x.Ms-*v.StopMs)
		}
		fmt.Fprintf(b, "    %s exit %d %+d ms :%smilestone, %d, 0ms\n", mermaidText(x.Container), x.Code, x.Ms, tag, x.Ms)
	}
}

// trafficEndLabel names the moment the pod stopped receiving traffic.
func trafficEndLabel(v timeline.Verdict) string {
	if len(v.NoReadyEndpoint) > 0 {
		return "traffic stops (the Service had no other ready endpoint)"
	}
	return "out of every ready set"
}

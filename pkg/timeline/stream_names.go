package timeline

// The stream names the watches use, as they appear on gap lines.
const (
	StreamPods           = "pod"
	StreamEndpointSlices = "EndpointSlices"
	StreamEvents         = "Events"
)

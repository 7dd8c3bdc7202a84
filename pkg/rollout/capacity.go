package rollout

import "github.com/kubectl-graceful/kubectl-graceful/internal/capacity"

// serviceTracks is the endpoint count of each Service that selects the
// workload (internal/capacity) and the samples it gave, one track a
// Service.
type serviceTracks struct {
	*capacity.Tracker
	tracks map[string]*CapacityTrack
}

// newServiceTracks tracks services against desired endpoints
// (capacity.DesiredReadyAtStart: the ready endpoints of the first count).
func newServiceTracks(services []string, desired int32) *serviceTracks {
	st := &serviceTracks{Tracker: capacity.NewTracker(services, desired), tracks: map[string]*CapacityTrack{}}
	for _, s := range services {
		st.tracks[s] = &CapacityTrack{Service: s}
	}
	return st
}

// record appends each change to its Service's track.
func (st *serviceTracks) record(changes []capacity.Change) {
	for _, c := range changes {
		if tr := st.tracks[c.Service]; tr != nil {
			tr.Samples = append(tr.Samples, CapacitySample(c.Sample))
		}
	}
}

// ordered returns the tracks in the order of services.
func (st *serviceTracks) ordered(services []string) []*CapacityTrack {
	out := make([]*CapacityTrack, 0, len(services))
	for _, s := range services {
		out = append(out, st.tracks[s])
	}
	return out
}

package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// stepSpec is full shrunk to pods pods, every count in the same proportion
// (Deployments, Services, PDBs, HPAs rounded down, Nodes up), with the same
// namespaces: object i keeps its namespace and name, so filling the next
// step only adds objects.
func stepSpec(full fixture.Spec, pods int) fixture.Spec {
	scale := func(n int) int { return n * pods / full.Pods }
	s := full
	s.Pods = pods
	s.Deployments = max(scale(full.Deployments), 1)
	s.Services, s.PDBs, s.HPAs = scale(full.Services), scale(full.PDBs), scale(full.HPAs)
	s.Nodes = max((full.Nodes*pods+full.Pods-1)/full.Pods, 1)
	return s
}

// liveSample is the live audit and the protobuf floor measured at one
// fixture size (medians).
type liveSample struct {
	pods              int
	ours, floor       time.Duration
	oursCPU, floorCPU time.Duration
	oursRSS, floorRSS int64
}

// scalingSteps fills the fixture up to each of Scale.ScalingPods in turn
// (all smaller than the full fixture, filled afterwards) and measures the
// live audit against the protobuf floor at each size.
func (h *harness) scalingSteps(ctx context.Context) ([]liveSample, error) {
	var out []liveSample
	if len(h.cfg.Scale.ScalingPods) == 0 || h.missing("audit") != "" || !h.selected("audit") {
		return nil, nil
	}
	ours, pfloor, err := h.liveCommands(ctx)
	if err != nil {
		return nil, err
	}
	for _, pods := range h.cfg.Scale.ScalingPods {
		set := fixture.Build(stepSpec(h.cfg.Scale.Fixture, pods))
		if _, err := fixture.Fill(ctx, h.cs, set, fixture.DefaultConcurrency, 15*time.Minute, h.cfg.Log); err != nil {
			return nil, err
		}
		s, err := h.sample(ctx, pods, ours, pfloor)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// sample measures ours and pfloor (see alternate) at the fixture's current
// size.
func (h *harness) sample(ctx context.Context, pods int, ours, pfloor command) (liveSample, error) {
	o, f, err := h.alternate(ctx, fmt.Sprintf("scaling, %d pods,", pods), ours, pfloor)
	if err != nil {
		return liveSample{}, err
	}
	return liveSample{pods: pods, ours: median(walls(o)), floor: median(walls(f)),
		oursCPU: median(cpus(o)), floorCPU: median(cpus(f)),
		oursRSS: medianInt(rsses(o)), floorRSS: medianInt(rsses(f))}, nil
}

// scalingRows is the scaling table: at each size, wall time and peak RSS of
// the live audit against the protobuf floor; then the time per pod at the
// largest size against the smallest (flat: within 1.5x).
func scalingRows(samples []liveSample) []Row {
	var rows []Row
	for _, s := range samples {
		rows = append(rows,
			Row{What: fmt.Sprintf("scaling, %d pods: audit -A wall time vs protobuf floor", s.pods), Ours: secs(s.ours), Theirs: secs(s.floor),
				Ratio: ratio(s.ours.Seconds(), s.floor.Seconds()), Target: "<= 1.3x floor", Met: met(s.ours.Seconds() <= 1.3*s.floor.Seconds())},
			Row{What: fmt.Sprintf("scaling, %d pods: audit -A peak RSS vs protobuf floor", s.pods), Ours: mb(s.oursRSS), Theirs: mb(s.floorRSS),
				Ratio: ratio(float64(s.oursRSS), float64(s.floorRSS)), Target: "informational", Met: "-"})
	}
	if len(samples) < 2 {
		return rows
	}
	first, last := samples[0], samples[len(samples)-1]
	perPod := func(d time.Duration, pods int) float64 { return d.Seconds() / float64(pods) }
	ours := func(s liveSample) float64 { return perPod(s.ours, s.pods) }
	floor := func(s liveSample) float64 { return perPod(s.floor, s.pods) }
	cpu := func(s liveSample) float64 { return perPod(s.oursCPU, s.pods) }
	ms := func(x float64) string { return fmt.Sprintf("%.3f ms", 1000*x) }
	span := fmt.Sprintf("%d vs %d pods", last.pods, first.pods)
	return append(rows,
		Row{What: "scaling: audit -A time per pod, " + span, Ours: ms(ours(last)), Theirs: ms(ours(first)),
			Ratio: ratio(ours(last), ours(first)), Target: "<= 1.5x (flat)", Met: met(ours(last) <= 1.5*ours(first))},
		// What the API server alone does to the same measure: the floor's
		// wall time is its LISTs' round trips.
		Row{What: "scaling: protobuf floor time per pod, " + span + " (the API server's own growth)", Ours: ms(floor(last)), Theirs: ms(floor(first)),
			Ratio: ratio(floor(last), floor(first)), Target: "informational", Met: "-"},
		// The audit's own work, the server's excluded: its CPU time.
		Row{What: "scaling: audit -A CPU time per pod, " + span + " (its own work)", Ours: ms(cpu(last)), Theirs: ms(cpu(first)),
			Ratio: ratio(cpu(last), cpu(first)), Target: "informational", Met: "-"},
	)
}

// cpus returns the CPU times of rs.
func cpus(rs []Measurement) []time.Duration {
	var ds []time.Duration
	for _, r := range rs {
		ds = append(ds, r.CPU)
	}
	return ds
}

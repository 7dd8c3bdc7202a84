package harness

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
)

// floorTypes are the resource types the live audit reads, as one `kubectl
// get` argument: the floor is one paged LIST per type.
const floorTypes = "deploy,sts,ds,rs,pods,svc,pdb,hpa,ingress"

// auditLive compares `kubectl graceful audit -A` with `kubectl get
// <floorTypes> -A -o json >/dev/null`: one untimed warm-up of each, then
// runs of each in alternating order. Each timed run is bracketed by two
// readings of the apiserver's request counter (see resourceRequests).
func (h *harness) auditLive(ctx context.Context) []Row {
	const (
		timeRow = "audit -A live: wall time (median)"
		rssRow  = "audit -A live: peak RSS"
		reqRow  = "audit -A live: API read requests"
	)
	targets := []string{"<= 1.5x floor", "< 300 MB", "<= 2x floor (types x pages)"}
	reason := h.missing("audit")
	if !h.selected("audit") {
		reason = notSelected
	}
	if reason != "" {
		return []Row{notMeasured(timeRow, targets[0], reason), notMeasured(rssRow, targets[1], reason), notMeasured(reqRow, targets[2], reason)}
	}
	ours := command{argv: []string{h.cfg.Binary, "audit", "-A", "--kubeconfig", h.cfg.Kubeconfig}, ok: []int{0, 2}}
	floor := command{argv: []string{h.cfg.Kubectl, "get", floorTypes, "-A", "-o", "json", "--kubeconfig", h.cfg.Kubeconfig}}
	var oursRuns, floorRuns []Measurement
	var oursReqs, floorReqs []int64
	for i := -1; i < h.cfg.Scale.AuditRuns; i++ {
		order := []*command{&ours, &floor}
		if i%2 != 0 {
			order = []*command{&floor, &ours}
		}
		for _, c := range order {
			res, reqs, err := measureRequests(ctx, h.cs, *c)
			if err != nil {
				return []Row{notMeasured(timeRow, targets[0], err.Error()), notMeasured(rssRow, targets[1], err.Error()), notMeasured(reqRow, targets[2], err.Error())}
			}
			h.logf("audit live run %d: %s %s, %s, %d requests", i, c.argv[1], secs(res.Wall), mb(res.MaxRSS), reqs)
			if i < 0 {
				continue // warm-up: discovery cache, page cache
			}
			if c == &ours {
				oursRuns, oursReqs = append(oursRuns, res), append(oursReqs, reqs)
			} else {
				floorRuns, floorReqs = append(floorRuns, res), append(floorReqs, reqs)
			}
		}
	}
	ow, fw := median(walls(oursRuns)), median(walls(floorRuns))
	orss, frss := medianInt(rsses(oursRuns)), medianInt(rsses(floorRuns))
	oreq, freq := medianInt(oursReqs), medianInt(floorReqs)
	return []Row{
		{What: timeRow, Ours: secs(ow), Theirs: secs(fw), Ratio: ratio(ow.Seconds(), fw.Seconds()), Target: targets[0], Met: met(ow.Seconds() <= 1.5*fw.Seconds())},
		{What: rssRow, Ours: mb(orss), Theirs: mb(frss), Ratio: ratio(float64(orss), float64(frss)), Target: targets[1], Met: met(orss < 300e6)},
		{What: reqRow + " (apiserver_request_total)", Ours: fmt.Sprint(oreq), Theirs: fmt.Sprint(freq), Ratio: ratio(float64(oreq), float64(freq)), Target: targets[2], Met: met(oreq <= 2*freq)},
	}
}

// measureRequests measures c and counts the apiserver read requests made
// while it ran.
func measureRequests(ctx context.Context, cs kubernetes.Interface, c command) (Measurement, int64, error) {
	before, err := resourceRequests(ctx, cs)
	if err != nil {
		return Measurement{}, 0, fmt.Errorf("apiserver metrics: %w", err)
	}
	res, err := measure(ctx, c)
	if err != nil {
		return res, 0, err
	}
	after, err := resourceRequests(ctx, cs)
	if err != nil {
		return Measurement{}, 0, fmt.Errorf("apiserver metrics: %w", err)
	}
	return res, after - before, nil
}

// auditManifests compares `kubectl graceful audit -f DIR` with `kube-score
// score FILES...` on the same documents, alternating, after a warm-up.
func (h *harness) auditManifests(ctx context.Context, files []string, docs int) []Row {
	timeRow := fmt.Sprintf("audit -f %d docs vs kube-score: wall time (median)", docs)
	rssRow := fmt.Sprintf("audit -f %d docs vs kube-score: peak RSS", docs)
	targets := []string{"<= 1.0x kube-score", "informational"}
	fail := func(reason string) []Row {
		return []Row{notMeasured(timeRow, targets[0], reason), notMeasured(rssRow, targets[1], reason)}
	}
	if !h.selected("manifests") {
		return fail(notSelected)
	}
	if reason := h.missing("audit"); reason != "" {
		return fail(reason)
	}
	ks, err := ensureKubeScore(ctx, h.cfg.Log)
	if err != nil {
		return fail(err.Error())
	}
	ours := command{argv: []string{h.cfg.Binary, "audit", "-f", h.manifestDir}, ok: []int{0, 2},
		// No cluster is involved: a kubeconfig that points nowhere proves it.
		env: []string{"KUBECONFIG=/nonexistent"}}
	theirs := command{argv: append([]string{ks, "score"}, files...), ok: []int{0, 1}}
	var oursRuns, theirRuns []Measurement
	for i := -1; i < h.cfg.Scale.AuditRuns; i++ {
		order := []*command{&ours, &theirs}
		if i%2 != 0 {
			order = []*command{&theirs, &ours}
		}
		for _, c := range order {
			res, err := measure(ctx, *c)
			if err != nil {
				return fail(err.Error())
			}
			h.logf("manifest audit run %d: %s %s, %s", i, c.argv[0], secs(res.Wall), mb(res.MaxRSS))
			if i < 0 {
				continue
			}
			if c == &ours {
				oursRuns = append(oursRuns, res)
			} else {
				theirRuns = append(theirRuns, res)
			}
		}
	}
	ow, tw := median(walls(oursRuns)), median(walls(theirRuns))
	orss, trss := medianInt(rsses(oursRuns)), medianInt(rsses(theirRuns))
	return []Row{
		{What: timeRow, Ours: secs(ow), Theirs: secs(tw), Ratio: ratio(ow.Seconds(), tw.Seconds()), Target: targets[0], Met: met(ow <= tw)},
		{What: rssRow, Ours: mb(orss), Theirs: mb(trss), Ratio: ratio(float64(orss), float64(trss)), Target: targets[1], Met: "-"},
	}
}

func walls(rs []Measurement) []time.Duration {
	var ds []time.Duration
	for _, r := range rs {
		ds = append(ds, r.Wall)
	}
	return ds
}

func rsses(rs []Measurement) []int64 {
	var xs []int64
	for _, r := range rs {
		xs = append(xs, r.MaxRSS)
	}
	return xs
}

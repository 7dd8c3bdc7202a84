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

// auditLive compares `kubectl graceful audit -A` with two floors: `kubectl
// get <floorTypes> -A -o json >/dev/null`, what users run today, and the
// protobuf floor (bench/cmd/floor: the audit's own paged LISTs made with
// client-go in protobuf and discarded), what the API server sends for the
// audit's reads. One untimed warm-up of each, then runs of the three in
// rotating order. Each timed run is bracketed by two readings of the
// apiserver's request counter (see resourceRequests).
func (h *harness) auditLive(ctx context.Context, samples []liveSample) []Row {
	const (
		timeRow   = "audit -A live: wall time (median)"
		rssRow    = "audit -A live: peak RSS"
		reqRow    = "audit -A live: API read requests"
		pTimeRow  = "audit -A live vs protobuf floor: wall time (median)"
		pRSSRow   = "audit -A live vs protobuf floor: peak RSS"
		pTarget   = "<= 1.3x floor"
		rssTarget = "< 300 MB"
	)
	targets := []string{"<= 1.5x floor", rssTarget, "<= 2x floor (types x pages)", pTarget, rssVsTarget("", 0, 0, h.cfg.Scale.AuditRSSTarget).Target}
	fail := func(reason string) []Row {
		return []Row{notMeasured(timeRow, targets[0], reason), notMeasured(rssRow, targets[1], reason), notMeasured(reqRow, targets[2], reason),
			notMeasured(pTimeRow, targets[3], reason), notMeasured(pRSSRow, targets[4], reason)}
	}
	reason := h.missing("audit")
	if !h.selected("audit") {
		reason = notSelected
	}
	if reason != "" {
		return fail(reason)
	}
	ours, pfloor, err := h.liveCommands(ctx)
	if err != nil {
		return fail(err.Error())
	}
	floor := command{argv: []string{h.cfg.Kubectl, "get", floorTypes, "-A", "-o", "json", "--kubeconfig", h.cfg.Kubeconfig}}
	all := []*command{&ours, &floor, &pfloor}
	if h.cfg.Scale.SkipKubectlFloor {
		all = []*command{&ours, &pfloor}
	}
	runs := map[*command][]Measurement{}
	reqs := map[*command][]int64{}
	h.settle(ctx, "audit live")
	for i := -1; i < h.cfg.Scale.AuditRuns; i++ {
		// Rotate the order, so that no command always runs first.
		k := (i + 1) % len(all)
		order := append(append([]*command{}, all[k:]...), all[:k]...)
		for _, c := range order {
			res, n, err := measureRequests(ctx, h.cs, *c)
			if err != nil {
				return fail(err.Error())
			}
			h.logf("audit live run %d: %s %s, %s, %d requests", i, c.argv[0], secs(res.Wall), mb(res.MaxRSS), n)
			if i < 0 {
				continue // warm-up: discovery cache, page cache
			}
			runs[c], reqs[c] = append(runs[c], res), append(reqs[c], n)
		}
	}
	ow, fw, pw := median(walls(runs[&ours])), median(walls(runs[&floor])), median(walls(runs[&pfloor]))
	orss, frss, prss := medianInt(rsses(runs[&ours])), medianInt(rsses(runs[&floor])), medianInt(rsses(runs[&pfloor]))
	oreq, freq := medianInt(reqs[&ours]), medianInt(reqs[&floor])
	full := liveSample{pods: h.cfg.Scale.Fixture.Pods, ours: ow, floor: pw, oursRSS: orss, floorRSS: prss,
		oursCPU: median(cpus(runs[&ours])), floorCPU: median(cpus(runs[&pfloor]))}
	kubectlRows := []Row{
		{What: timeRow, Ours: secs(ow), Theirs: secs(fw), Ratio: ratio(ow.Seconds(), fw.Seconds()), Target: targets[0], Met: met(ow.Seconds() <= 1.5*fw.Seconds())},
		{What: rssRow, Ours: mb(orss), Theirs: mb(frss), Ratio: ratio(float64(orss), float64(frss)), Target: targets[1], Met: met(orss < 300e6)},
		{What: reqRow + " (apiserver_request_total)", Ours: fmt.Sprint(oreq), Theirs: fmt.Sprint(freq), Ratio: ratio(float64(oreq), float64(freq)), Target: targets[2], Met: met(oreq <= 2*freq)},
	}
	if h.cfg.Scale.SkipKubectlFloor {
		reason := "kubectl get -o json not run at the " + h.cfg.Scale.Name + " scale (minutes a run)"
		kubectlRows = fail(reason)[:3]
	}
	return append(append(kubectlRows,
		Row{What: pTimeRow, Ours: secs(ow), Theirs: secs(pw), Ratio: ratio(ow.Seconds(), pw.Seconds()), Target: targets[3], Met: met(ow.Seconds() <= 1.3*pw.Seconds())},
		rssVsTarget(pRSSRow, orss, prss, h.cfg.Scale.AuditRSSTarget)),
		scalingRows(append(samples, full))...)
}

// rssVsTarget is the row of ours against the protobuf floor's peak RSS,
// judged against target bytes (informational when 0).
func rssVsTarget(what string, ours, floor, target int64) Row {
	r := Row{What: what, Ours: mb(ours), Theirs: mb(floor), Ratio: ratio(float64(ours), float64(floor)), Target: "informational", Met: "-"}
	if target > 0 {
		r.Target, r.Met = "< "+mb(target), met(ours < target)
	}
	return r
}

// liveCommands returns `kubectl-graceful audit -A` and the protobuf floor
// (bench/cmd/floor, built into OutDir).
func (h *harness) liveCommands(ctx context.Context) (ours, pfloor command, err error) {
	bin, err := h.buildCommand(ctx, "floor")
	if err != nil {
		return ours, pfloor, err
	}
	ours = command{argv: []string{h.cfg.Binary, "audit", "-A", "--kubeconfig", h.cfg.Kubeconfig}, ok: []int{0, 2}}
	pfloor = command{argv: []string{bin, "-kubeconfig", h.cfg.Kubeconfig, "-page", "500"}}
	return ours, pfloor, nil
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
	oursRuns, theirRuns, err := h.alternate(ctx, "manifest audit", ours, theirs)
	if err != nil {
		return fail(err.Error())
	}
	ow, tw := median(walls(oursRuns)), median(walls(theirRuns))
	orss, trss := medianInt(rsses(oursRuns)), medianInt(rsses(theirRuns))
	return []Row{
		{What: timeRow, Ours: secs(ow), Theirs: secs(tw), Ratio: ratio(ow.Seconds(), tw.Seconds()), Target: targets[0], Met: met(ow <= tw)},
		{What: rssRow, Ours: mb(orss), Theirs: mb(trss), Ratio: ratio(float64(orss), float64(trss)), Target: targets[1], Met: "-"},
	}
}

// alternate waits for the machine to settle, then measures a and b in
// alternating order, AuditRuns times each after one untimed warm-up of
// each (discovery cache, page cache), logging every run under what.
func (h *harness) alternate(ctx context.Context, what string, a, b command) (aRuns, bRuns []Measurement, err error) {
	h.settle(ctx, what)
	for i := -1; i < h.cfg.Scale.AuditRuns; i++ {
		order := []*command{&a, &b}
		if i%2 != 0 {
			order = []*command{&b, &a}
		}
		for _, c := range order {
			res, err := measure(ctx, *c)
			if err != nil {
				return nil, nil, err
			}
			h.logf("%s run %d: %s %s, %s", what, i, c.argv[0], secs(res.Wall), mb(res.MaxRSS))
			switch {
			case i < 0:
			case c == &a:
				aRuns = append(aRuns, res)
			default:
				bRuns = append(bRuns, res)
			}
		}
	}
	return aRuns, bRuns, nil
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

package harness

import (
	"context"
	"fmt"
)

// fixManifests compares `kubectl graceful audit -f DIR --fix --diff` with
// the audit alone on the same documents, alternating, after a warm-up:
// planning and editing every document that needs it must stay within 2x.
func (h *harness) fixManifests(ctx context.Context, docs int) []Row {
	row := fmt.Sprintf("audit -f %d docs --fix --diff vs audit alone: wall time (median)", docs)
	target := "<= 2.0x audit"
	if !h.selected("manifests") {
		return []Row{notMeasured(row, target, notSelected)}
	}
	if reason := h.missing("audit"); reason != "" {
		return []Row{notMeasured(row, target, reason)}
	}
	env := []string{"KUBECONFIG=/nonexistent"}
	fix := command{argv: []string{h.cfg.Binary, "audit", "-f", h.manifestDir, "--fix", "--diff"}, ok: []int{0, 2}, env: env}
	audit := command{argv: []string{h.cfg.Binary, "audit", "-f", h.manifestDir}, ok: []int{0, 2}, env: env}
	var fixRuns, auditRuns []Measurement
	for i := -1; i < h.cfg.Scale.AuditRuns; i++ {
		order := []*command{&fix, &audit}
		if i%2 != 0 {
			order = []*command{&audit, &fix}
		}
		for _, c := range order {
			res, err := measure(ctx, *c)
			if err != nil {
				return []Row{notMeasured(row, target, err.Error())}
			}
			what := "audit"
			if c == &fix {
				what = "audit --fix --diff"
			}
			h.logf("manifest fix run %d: %s %s", i, what, secs(res.Wall))
			switch {
			case i < 0:
			case c == &fix:
				fixRuns = append(fixRuns, res)
			default:
				auditRuns = append(auditRuns, res)
			}
		}
	}
	fw, aw := median(walls(fixRuns)), median(walls(auditRuns))
	return []Row{{What: row, Ours: secs(fw), Theirs: secs(aw), Ratio: ratio(fw.Seconds(), aw.Seconds()), Target: target,
		Met: met(fw.Seconds() <= 2*aw.Seconds())}}
}

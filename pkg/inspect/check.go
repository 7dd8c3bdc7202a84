package inspect

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// SkipAnnotation, on a workload, its pod template or a PDB, lists check IDs
// (comma-separated, or "all") that the audit does not report for it.
const SkipAnnotation = "kubectl-graceful.dev/skip-checks"

// ShutdownSecondsAnnotation, on a pod template, declares how many seconds
// the application needs after SIGTERM to finish in-flight work.
const ShutdownSecondsAnnotation = "kubectl-graceful.dev/shutdown-seconds"

// Check is one entry of the catalogue: a stable ID, a default severity, its
// summary and explanation, the inputs it needs, and the function that finds
// problems. Everything the docs, SARIF rules and `audit explain` say about
// a check comes from here.
type Check struct {
	// ID is the stable kebab-case name used in output, --skip and annotations.
	ID string
	// Topic places the check in the docs.
	Topic Topic
	// Severity is the default severity of its findings.
	Severity Severity
	// Summary is the one-line description shown in docs and SARIF rules.
	Summary string
	// Explanation says why the check matters, how to fix what it finds, and
	// the Kubernetes source of the rule.
	Explanation Explanation
	// Needs lists inputs without which the check cannot run.
	Needs []Input
	// LiveOnly marks checks that read object status (live clusters only).
	LiveOnly bool
	// Field is the field its findings are about, as the tail of its path
	// within the container the finding names ("lifecycle.preStop") or the
	// object ("spec.minReadySeconds"): a finding's source line is its line
	// in the file (Source.at).
	Field string
	run   runFunc
}

// Explanation explains a check (`kubectl graceful audit explain ID`):
// plain sentences, no markdown.
type Explanation struct {
	// Why the problem drops requests or blocks drains.
	Why string
	// Fix is the change that removes the finding.
	Fix string
	// Source names the Kubernetes code or documentation the rule comes from.
	Source string
}

// Options tune the checks; DefaultOptions gives the documented defaults.
type Options struct {
	// ShutdownSeconds (seconds) is the app's shutdown time after SIGTERM
	// for workloads without ShutdownSecondsAnnotation; nil means assume
	// assumedShutdownSeconds and say so.
	ShutdownSeconds *int64
	// PreStopFloorSeconds is the shortest preStop delay (seconds) that
	// covers endpoint removal for a pod behind a Service (default 5).
	PreStopFloorSeconds int64
	// MaxGraceSeconds is the grace period (seconds) above which
	// grace-period-long warns (default 300).
	MaxGraceSeconds int64
	// Skip lists check IDs not to run.
	Skip []string
	// DrainerCaps are the drainers' limits on a pod's termination that
	// shutdown-exceeds-drainer-cap compares each workload with.
	DrainerCaps []DrainerCap
}

// assumedShutdownSeconds is the app shutdown time (seconds) assumed when
// neither the annotation nor --shutdown-seconds declares one.
const assumedShutdownSeconds = 5

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{PreStopFloorSeconds: 5, MaxGraceSeconds: 300}
}

// Checks returns the whole catalogue in its documented order.
func Checks() []*Check { return catalogue }

// Lookup returns the check with the given ID, or nil.
func Lookup(id string) *Check {
	for _, c := range catalogue {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Audit runs every check of the catalogue not in opts.Skip over inv. Checks
// whose inputs are unavailable, or that need a live cluster in manifest
// mode, are listed in Report.Skipped. Findings suppressed by SkipAnnotation
// are counted in Summary.Suppressed. An object with an unknown field gets
// only unknown-field findings. Findings are sorted by object, then
// severity, then check.
func Audit(inv *Inventory, opts Options) *Report {
	inv.resolveWorkloadRefs()
	s := &scope{inv: inv, opts: opts}
	r := &Report{Findings: []Finding{}, Skipped: []Skipped{}, Notes: append(append(append(append([]string{}, inv.Notes...), scalerNotes(inv)...), unreadRefNotes(inv)...), ingressNotes(inv)...)}
	unknown := withUnknownFields(inv)
	for _, c := range catalogue {
		if slices.Contains(opts.Skip, c.ID) {
			continue
		}
		if reason, msg := s.cannotRun(c); reason != "" {
			r.Skipped = append(r.Skipped, Skipped{Check: c.ID, Reason: reason, Message: msg})
			continue
		}
		for _, f := range c.run(s, c) {
			if unknown[f.Object] && c != unknownField {
				continue // what the API server would do with it is not known
			}
			if s.suppressed(f) {
				r.Summary.Suppressed++
				continue
			}
			r.Findings = append(r.Findings, f)
		}
	}
	// By object, the most severe first, then by check and container.
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Object.Namespace, b.Object.Namespace), cmp.Compare(a.Object.Kind, b.Object.Kind),
			cmp.Compare(a.Object.Name, b.Object.Name), cmp.Compare(b.Severity.rank(), a.Severity.rank()),
			cmp.Compare(a.Check, b.Check), cmp.Compare(a.Container, b.Container))
	})
	r.Summary.Workloads = len(inv.Workloads)
	r.Summary.Objects = inv.Objects
	r.Summary.Findings = len(r.Findings)
	r.Summary.Skipped = len(r.Skipped)
	summarizeReading(inv, &r.Summary)
	for _, f := range r.Findings {
		switch f.Severity {
		case SeverityError:
			r.Summary.Errors++
		case SeverityWarning:
			r.Summary.Warnings++
		case SeverityInfo:
			r.Summary.Infos++
		}
	}
	return r
}

// scope is what a check sees: the inventory, the options, and the
// suppression annotations of the objects findings are about.
type scope struct {
	inv  *Inventory
	opts Options
	// services memoizes servicesFor per workload.
	services map[*Workload][]corev1.Service
	// skips maps an object to the SkipAnnotation values that apply to it.
	skips map[ObjectRef][]string
	// idx groups the inventory by namespace (index.go).
	idx *index
}

// cannotRun says why check c cannot run on this inventory, as a reason
// and in words; "" when it can.
func (s *scope) cannotRun(c *Check) (SkipReason, string) {
	if c.LiveOnly && !s.inv.Live {
		return SkipNeedsLiveCluster, "needs a live cluster (it reads object status)"
	}
	for _, in := range c.Needs {
		if reason, ok := s.inv.Unavailable[in]; ok {
			return SkipInputUnavailable, fmt.Sprintf("cannot read %s: %s", in, reason)
		}
	}
	return "", ""
}

// suppressed reports whether the finding's object lists its check (or
// "all") in SkipAnnotation.
func (s *scope) suppressed(f Finding) bool {
	if s.skips == nil {
		s.skips = map[ObjectRef][]string{}
		for _, o := range s.inv.objects() {
			s.skips[o.ref] = append(s.skips[o.ref], o.skips...)
		}
	}
	for _, l := range s.skips[f.Object] {
		for _, id := range strings.Split(l, ",") {
			id = strings.TrimSpace(id)
			if id == f.Check || id == "all" {
				return true
			}
		}
	}
	return false
}

// finding builds a finding about workload w at the check's default severity.
func (c *Check) finding(w *Workload, container, msg, fix string) Finding {
	return Finding{Check: c.ID, Severity: c.Severity, Object: w.Object, Container: container,
		Message: msg, Fix: fix, Source: w.Source.at(container, c.Field)}
}

// runFunc is how a check finds its findings.
type runFunc func(s *scope, c *Check) []Finding

// perWorkload is the run of a check that looks at each workload on its
// own: f's findings for each.
func perWorkload(f func(s *scope, c *Check, w *Workload) []Finding) runFunc {
	return func(s *scope, c *Check) []Finding {
		var out []Finding
		for _, w := range s.inv.Workloads {
			out = append(out, f(s, c, w)...)
		}
		return out
	}
}

// onePerWorkload is the run of a check with at most one finding per
// workload, about the workload itself: f says it for w, or returns "".
func onePerWorkload(f func(s *scope, w *Workload) (msg, fix string)) runFunc {
	return perWorkload(func(s *scope, c *Check, w *Workload) []Finding {
		if msg, fix := f(s, w); msg != "" {
			return []Finding{c.finding(w, "", msg, fix)}
		}
		return nil
	})
}

// perContainer is the run of a check with at most one finding per
// terminating container of each workload: f says it for ctr, or returns "".
func perContainer(f func(s *scope, w *Workload, ctr corev1.Container) (msg, fix string)) runFunc {
	return perWorkload(func(s *scope, c *Check, w *Workload) []Finding {
		var out []Finding
		for _, ctr := range podspec.TerminatingContainers(w.Template.Spec) {
			if msg, fix := f(s, w, ctr); msg != "" {
				out = append(out, c.finding(w, ctr.Name, msg, fix))
			}
		}
		return out
	})
}

// perServingContainer is f's findings for each serving container of each
// workload behind a Service (svc is the first such Service, named in
// messages).
func perServingContainer(f func(s *scope, c *Check, w *Workload, svc corev1.Service, ctr corev1.Container) []Finding) runFunc {
	return perWorkload(func(s *scope, c *Check, w *Workload) []Finding {
		svcs := s.servicesFor(w)
		if len(svcs) == 0 {
			return nil
		}
		var out []Finding
		for _, ctr := range servingContainers(w, svcs) {
			out = append(out, f(s, c, w, svcs[0], ctr)...)
		}
		return out
	})
}

// both is the run of a check with a's findings, then b's.
func both(a, b runFunc) runFunc {
	return func(s *scope, c *Check) []Finding { return append(a(s, c), b(s, c)...) }
}

// perPDB is the run of a check with at most one finding per
// PodDisruptionBudget: f says it for budget i, p, or returns "".
func perPDB(f func(s *scope, i int, p PDB) (msg, fix string)) runFunc {
	return func(s *scope, c *Check) []Finding {
		var out []Finding
		for i, p := range s.inv.PDBs {
			if msg, fix := f(s, i, p); msg != "" {
				out = append(out, c.objectFinding(object{ref: pdbRef(p), source: p.Source}, msg, fix))
			}
		}
		return out
	}
}

// patchCommand returns a `kubectl patch` line applying podSpecPatch (a
// strategic merge patch of the pod spec) to w's pod template, or, for a bare
// Pod whose spec cannot be patched, the same patch as JSON to put in its
// manifest.
func patchCommand(w *Workload, podSpecPatch map[string]any) string {
	var wrapped map[string]any
	if w.Generic {
		// kubectl patch applies strategic merge patches to built-in kinds
		// only; a merge patch would replace the whole containers list.
		b, _ := json.Marshal(podSpecPatch)
		return "merge into spec.template.spec of its manifest: " + string(b)
	}
	switch w.Object.Kind {
	case "Pod":
		b, _ := json.Marshal(map[string]any{"spec": podSpecPatch})
		return "recreate the Pod with: " + string(b)
	case "CronJob":
		wrapped = map[string]any{"spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpecPatch}}}}}
	default:
		wrapped = map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpecPatch}}}
	}
	b, _ := json.Marshal(wrapped)
	return fmt.Sprintf("kubectl patch %s %s -n %s -p '%s'", strings.ToLower(w.Object.Kind), w.Object.Name, w.Object.Namespace, b)
}

// containerPatch is a pod spec patch changing one container by name.
func containerPatch(name string, fields map[string]any) map[string]any {
	c := map[string]any{"name": name}
	maps.Copy(c, fields)
	return map[string]any{"containers": []any{c}}
}

package inspect

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// fieldSupport is a field the checks read that API servers accept, with
// their default feature gates, only from some release on: the release
// where its feature gate became beta and on by default. Sources are the
// KEPs' graduation milestones (kubernetes.dev/resources/keps) and the
// feature gate table (kubernetes.io/docs/reference/command-line-tools-reference/feature-gates).
type fieldSupport struct {
	// field is the path as messages name it.
	field string
	// since is the first release accepting it by default.
	since Version
	// gate is the feature gate behind it before since.
	gate string
	// before says what older releases do with it.
	before string
	// kubelet is true when kubelets need the gate too: a server that
	// stored the field says nothing of the nodes'.
	kubelet bool
}

var (
	// KEP-3960 (PodLifecycleSleepAction): alpha in 1.29, off by default;
	// beta and on by default in 1.30; GA in 1.34. With the gate off the API
	// server drops the field, and a preStop left with no handler is
	// refused ("must specify a handler type"); kubelet runs the sleep only
	// with its own gate on, else the hook fails at once.
	fieldPreStopSleep = fieldSupport{field: "lifecycle.preStop.sleep", since: Version{1, 30}, gate: "PodLifecycleSleepAction",
		before: "1.29 has it behind the alpha feature gate PodLifecycleSleepAction, off by default (the field is dropped and the hook refused for want of a handler); older releases do not know the field", kubelet: true}
	// KEP-4818 (PodLifecycleSleepActionAllowZero): alpha in 1.32, off by
	// default; beta and on by default in 1.33; GA in 1.34. Before, a sleep
	// of 0 s fails validation (seconds must be greater than 0).
	fieldZeroSleep = fieldSupport{field: "lifecycle.preStop.sleep.seconds: 0", since: Version{1, 33}, gate: "PodLifecycleSleepActionAllowZero",
		before: "before 1.33 validation refuses a sleep of 0 s (1.32 only with the alpha feature gate PodLifecycleSleepActionAllowZero on)"}
	// KEP-753 (SidecarContainers): alpha in 1.28, off by default; beta and
	// on by default in 1.29; GA in 1.33. With the gate off the API server
	// drops restartPolicy from init containers: the sidecar runs as an
	// init container that never completes, and the pod never starts.
	fieldNativeSidecar = fieldSupport{field: "initContainers[].restartPolicy: Always", since: Version{1, 29}, gate: "SidecarContainers",
		before: "1.28 has it behind the alpha feature gate SidecarContainers, off by default (the field is dropped: the container runs as an init container that never completes, so the pod never starts); older releases do not know the field", kubelet: true}
	// KEP-3017 (PDBUnhealthyPodEvictionPolicy): alpha in 1.26, off by
	// default; beta and on by default in 1.27; GA in 1.31. With the gate
	// off the field is dropped and the eviction API keeps IfHealthyBudget.
	fieldUnhealthyPolicy = fieldSupport{field: "spec.unhealthyPodEvictionPolicy", since: Version{1, 27}, gate: "PDBUnhealthyPodEvictionPolicy",
		before: "1.26 has it behind the alpha feature gate PDBUnhealthyPodEvictionPolicy, off by default (the field is dropped: evictions keep IfHealthyBudget); older releases do not know the field"}
)

var fieldNewerThanTarget = register(&Check{
	ID:       "field-newer-than-target",
	Topic:    TopicAPIVersions,
	Severity: SeverityError,
	Summary:  "manifest field the target Kubernetes version does not accept by default (preStop sleep: 1.30, its 0 s form: 1.33, native sidecars: 1.29, a PDB's unhealthyPodEvictionPolicy: 1.27): refused or dropped; live, a warning where kubelets need the feature gate too",
	// No target (the zero Version) is taken as current, which accepts all.
	run: both(perWorkload((*scope).newerFieldsOfWorkload), perPDB(func(s *scope, _ int, p PDB) (string, string) {
		if p.Spec.UnhealthyPodEvictionPolicy == nil || s.inv.Live || s.inv.Version.AtLeast(1, 27) {
			return "", ""
		}
		return newerFieldsMessage(s.inv.Version, []fieldSupport{fieldUnhealthyPolicy}, false), "remove spec.unhealthyPodEvictionPolicy, or target Kubernetes 1.27 or later"
	})),
	Explanation: Explanation{
		Why: "Some fields the checks read are accepted by API servers only from the release where their feature gate is beta and on by default. Written for an older target, the server drops the field (gate off) or does not know it, and the workload does not do what the manifest says: a preStop sleep that is refused, a sidecar that runs as an init container that never completes. " +
			"From files the target is --kube-version; live it is the server's version (discovery). A live object holding such a field was accepted, so the API server's gate is on; where kubelets need the gate too (preStop sleep, native sidecars) the API does not show whether they have it, and the finding is a warning.",
		Fix:    "Target a release that accepts the field, or write what the target accepts: exec [\"sleep\", \"N\"] for lifecycle.preStop.sleep below 1.30 (--fix does this where the image may have a sleep binary), a regular container for a native sidecar below 1.29, no unhealthyPodEvictionPolicy below 1.27.",
		Source: "KEP-3960 (PodLifecycleSleepAction: alpha 1.29, beta 1.30), KEP-4818 (PodLifecycleSleepActionAllowZero: alpha 1.32, beta 1.33), KEP-753 (SidecarContainers: alpha 1.28, beta 1.29), KEP-3017 (PDBUnhealthyPodEvictionPolicy: alpha 1.26, beta 1.27); Kubernetes feature gates reference",
	},
})

// newerFieldsOfWorkload reports, per container, the fields of w's pod
// template that the target does not accept by default. Live, only fields
// kubelets need the gate for are reported (the server stored the object,
// so its own gate is on).
func (s *scope) newerFieldsOfWorkload(c *Check, w *Workload) []Finding {
	var out []Finding
	spec := w.Template.Spec
	for _, ctr := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		fields := newerFields(s.inv.Version, spec, ctr.Name)
		if s.inv.Live { // only the fields kubelets need the gate for
			fields = slices.DeleteFunc(fields, func(f fieldSupport) bool { return !f.kubelet })
		}
		if len(fields) == 0 {
			continue
		}
		f := c.finding(w, ctr.Name, newerFieldsMessage(s.inv.Version, fields, s.inv.Live), newerFieldsFix(fields))
		if s.inv.Live {
			f.Severity = SeverityWarning
		}
		out = append(out, f)
	}
	return out
}

// UnsupportedFields returns the paths of the fields of the named container
// of spec (lifecycle.preStop.sleep, lifecycle.preStop.sleep.seconds: 0,
// initContainers[].restartPolicy: Always) that Kubernetes v does not accept
// with its default feature gates; none for the zero (current) Version.
// `audit --fix` reads it to know whether an exec sleep removes them all.
func UnsupportedFields(v Version, spec corev1.PodSpec, container string) []string {
	var out []string
	for _, f := range newerFields(v, spec, container) {
		out = append(out, f.field)
	}
	return out
}

// newerFields is UnsupportedFields with each field's facts.
func newerFields(v Version, spec corev1.PodSpec, container string) []fieldSupport {
	var out []fieldSupport
	add := func(f fieldSupport) {
		if !v.AtLeast(f.since.Major, f.since.Minor) {
			out = append(out, f)
		}
	}
	for _, c := range spec.InitContainers {
		if c.Name == container && podspec.IsSidecar(c) {
			add(fieldNativeSidecar)
		}
	}
	for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		if c.Name != container || c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
			continue
		}
		add(fieldPreStopSleep)
		if c.Lifecycle.PreStop.Sleep.Seconds == 0 {
			add(fieldZeroSleep)
		}
	}
	return out
}

// newerFieldsMessage names each field, the release that first accepts it
// and what the target does with it.
func newerFieldsMessage(target Version, fs []fieldSupport, live bool) string {
	var parts []string
	for _, f := range fs {
		if live {
			parts = append(parts, fmt.Sprintf("%s is on by default from Kubernetes %s; this server (%s) stored it, so feature gate %s is on in its API server, but each node's kubelet needs it on too, which the API does not show (without it the kubelet does not run the field as written)",
				f.field, f.since, target, f.gate))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s needs Kubernetes %s (audit target: %s): %s", f.field, f.since, target, f.before))
	}
	return strings.Join(parts, "; ")
}

// newerFieldsFix is the change for a container's fields.
func newerFieldsFix(fs []fieldSupport) string {
	var parts []string
	newest := fs[0].since
	for _, f := range fs {
		if f.since.AtLeast(newest.Major, newest.Minor) {
			newest = f.since
		}
		switch f {
		case fieldPreStopSleep:
			parts = append(parts, `replace lifecycle.preStop.sleep with exec: {command: ["sleep", "N"]} (the image needs a sleep binary)`)
		case fieldZeroSleep:
			parts = append(parts, "a 0 s sleep delays nothing: remove the preStop hook or give it the delay the Service needs")
		case fieldNativeSidecar:
			parts = append(parts, "run the sidecar as a regular container (it then stops with the app, not after it)")
		}
	}
	return strings.Join(parts, "; ") + fmt.Sprintf(", or target Kubernetes %s or later", newest)
}

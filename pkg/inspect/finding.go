package inspect

import "slices"

// Severity of a finding: error, warning or info (highest first).
type Severity string

// Severities, from the most to the least serious.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// rank orders severities: error 3, warning 2, info 1, anything else 0.
func (s Severity) rank() int {
	return slices.Index([]Severity{SeverityInfo, SeverityWarning, SeverityError}, s) + 1
}

// ObjectRef names a Kubernetes object.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String returns kind/name, prefixed with the namespace when there is one.
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Namespace + "/" + r.Kind + "/" + r.Name
}

// Source is where a manifest object was read: a file path (or "STDIN",
// or a kustomize directory) and a 1-based line: in an inventory's object,
// where its YAML document starts; in a finding, the line of the field the
// finding is about (Check.Field), or of the nearest field above it that
// the file has. Line is 0 when unknown.
type Source struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Fields are the 1-based lines of the object's fields in File, by
	// path ("spec.template.spec.containers[web].lifecycle.preStop": list
	// items by their name, else their index); nil when unknown (live
	// objects, kustomize output).
	Fields map[string]int `json:"-"`
}

// Finding is one problem found on one object (and container, where it
// applies), with the numbers involved in Message and a concrete change in Fix.
type Finding struct {
	Check     string    `json:"check"`
	Severity  Severity  `json:"severity"`
	Object    ObjectRef `json:"object"`
	Container string    `json:"container,omitempty"`
	Message   string    `json:"message"`
	Fix       string    `json:"fix,omitempty"`
	Source    *Source   `json:"source,omitempty"`
	// PreStopSeconds, when not 0, is the preStop delay (seconds) a
	// missing-prestop or prestop-too-short finding asks for where it is
	// longer than Options.PreStopFloorSeconds: the time an Ingress
	// controller routing to the pod needs (docs/ingress.md).
	PreStopSeconds int64 `json:"preStopSeconds,omitempty"`
}

// Skipped is a check that did not run, and why (RBAC forbids reading what it
// needs, an API is missing, it needs a live cluster).
type Skipped struct {
	Check  string     `json:"check"`
	Reason SkipReason `json:"reason"`
	// Message says why in words: the input and the API server's answer.
	Message string `json:"message"`
}

// SkipReason is why a check did not run, a stable kebab-case value.
type SkipReason string

// Skip reasons.
const (
	// SkipNeedsLiveCluster: the check reads object status (a manifest audit).
	SkipNeedsLiveCluster SkipReason = "needs-live-cluster"
	// SkipInputUnavailable: an input could not be read (RBAC, an API the
	// server does not serve); Message quotes the API server.
	SkipInputUnavailable SkipReason = "input-unavailable"
)

// Summary counts what an audit looked at and found.
type Summary struct {
	Workloads int `json:"workloads"`
	Objects   int `json:"objects"`
	Findings  int `json:"findings"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Infos     int `json:"infos"`
	Skipped   int `json:"skipped"`
	// Suppressed counts findings dropped by the skip annotation or --skip.
	Suppressed int `json:"suppressed"`
	// Generic counts workloads of kinds the checks do not read (custom
	// resources, ReplicationControllers) audited through their pod template.
	Generic int `json:"generic"`
	// NotAudited counts objects read but not audited, per reason, sorted
	// by reason.
	NotAudited []NotAudited `json:"notAudited"`
}

// NotAudited is a count of objects read but not audited, and why.
type NotAudited struct {
	Reason NotAuditedReason `json:"reason"`
	// Message says why in words (the kind and its controller, where one).
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// NotAuditedReason is why objects were read but not audited, a stable
// kebab-case value.
type NotAuditedReason string

// Reasons objects are not audited.
const (
	// NotAuditedCustomResource: a custom resource without a pod template
	// (an operator may create pods from it; they are not seen).
	NotAuditedCustomResource NotAuditedReason = "custom-resource-without-pod-template"
	// NotAuditedUnparseable: a document that does not parse, of a kind the
	// audit does not read.
	NotAuditedUnparseable NotAuditedReason = "unparseable-document"
	// NotAuditedUnreadController: an object controlled by a controller the
	// audit does not read (audit the controller by name, or its manifests).
	NotAuditedUnreadController NotAuditedReason = "controller-not-read"
)

// Report is the result of an audit, in the shape of `-o json` and `-o yaml`.
type Report struct {
	Findings []Finding `json:"findings"`
	Skipped  []Skipped `json:"skipped"`
	// Notes say how some objects were read (a custom resource audited as a
	// generic workload, an apiVersion read as its successor).
	Notes   []string `json:"notes"`
	Summary Summary  `json:"summary"`
}

// AtOrAbove reports whether any finding is at or above severity min. An
// empty min (--fail-on none) never fails.
func (r *Report) AtOrAbove(min Severity) bool {
	return min != "" && slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Severity.rank() >= min.rank() })
}

package inspect

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// removedAPI is an apiVersion of a workload or PodDisruptionBudget kind
// that API servers no longer serve, and what replaces it.
type removedAPI struct {
	// RemovedIn is the first Kubernetes minor release that does not serve it.
	RemovedIn Version
	// Replacement is the apiVersion to write instead (apps/v1).
	Replacement string
}

// RemovedAPIs maps "apiVersion Kind" to its removal, for the kinds the audit
// reads. Source: the Kubernetes deprecated API migration guide
// (kubernetes.io/docs/reference/using-api/deprecation-guide): extensions/v1beta1
// and apps/v1beta1, apps/v1beta2 workloads were removed in 1.16;
// batch/v1beta1 CronJob and policy/v1beta1 PodDisruptionBudget in 1.25.
var RemovedAPIs = map[string]removedAPI{
	"extensions/v1beta1 Deployment":      {Version{1, 16}, "apps/v1"},
	"extensions/v1beta1 DaemonSet":       {Version{1, 16}, "apps/v1"},
	"extensions/v1beta1 ReplicaSet":      {Version{1, 16}, "apps/v1"},
	"apps/v1beta1 Deployment":            {Version{1, 16}, "apps/v1"},
	"apps/v1beta1 StatefulSet":           {Version{1, 16}, "apps/v1"},
	"apps/v1beta2 Deployment":            {Version{1, 16}, "apps/v1"},
	"apps/v1beta2 StatefulSet":           {Version{1, 16}, "apps/v1"},
	"apps/v1beta2 DaemonSet":             {Version{1, 16}, "apps/v1"},
	"apps/v1beta2 ReplicaSet":            {Version{1, 16}, "apps/v1"},
	"batch/v1beta1 CronJob":              {Version{1, 25}, "batch/v1"},
	"policy/v1beta1 PodDisruptionBudget": {Version{1, 25}, "policy/v1"},
}

var removedAPIVersion = register(&Check{
	ID:       "removed-api-version",
	Field:    "apiVersion",
	Topic:    TopicAPIVersions,
	Severity: SeverityWarning,
	Summary:  "manifest in an apiVersion the target server no longer serves (extensions/v1beta1, apps/v1beta1 and v1beta2 workloads: 1.16; policy/v1beta1 PDBs: 1.25): the apply fails; audited as the current version",
	run: perObject(func(s *scope, o object) (string, string) {
		return removedMessage(s.inv.Version, o.apiVersion, o.ref.Kind)
	}),
	Explanation: Explanation{
		Why:    "API servers stop serving an apiVersion in the release that removes it; applying a manifest written in it fails (\"no matches for kind\"), so the workload is never updated or created. Removed: " + removedAPIList() + ". The fields the checks read kept their meaning, so the audit reads the object as the current version.",
		Fix:    "Change apiVersion to the replacement (apps/v1, batch/v1, policy/v1); apps/v1 requires spec.selector, and a policy/v1 PDB's empty selector selects every pod. kubectl convert can rewrite the manifest.",
		Source: "Kubernetes deprecated API migration guide (kubernetes.io/docs/reference/using-api/deprecation-guide)",
	},
})

// removedMessage says that apiVersion's kind is no longer served by target,
// or returns "" when it is (or apiVersion is not a removed one).
func removedMessage(target Version, apiVersion, kind string) (msg, fix string) {
	r, ok := RemovedAPIs[apiVersion+" "+kind]
	if !ok || !target.AtLeast(r.RemovedIn.Major, r.RemovedIn.Minor) {
		return "", ""
	}
	msg = fmt.Sprintf("apiVersion %s %s was removed in Kubernetes %s (audit target: %s): the API server refuses this manifest; audited as %s",
		apiVersion, kind, r.RemovedIn, versionOr(target, "the current release"), r.Replacement)
	fix = "change apiVersion to " + r.Replacement
	switch {
	case r.Replacement == "apps/v1":
		fix += " and set spec.selector (required there, immutable after creation) to the pod template's labels"
	case kind == "PodDisruptionBudget":
		fix += "; there an empty selector selects every pod in the namespace (in policy/v1beta1 it selected none)"
	}
	return msg, fix
}

// removedAPIList names the removed versions, for documentation.
func removedAPIList() string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(RemovedAPIs)) {
		out = append(out, fmt.Sprintf("%s (%s)", k, RemovedAPIs[k].RemovedIn))
	}
	return strings.Join(out, ", ")
}

// versionOr names the target version v in messages, unknown when it is
// unknown (zero) and taken as current.
func versionOr(v Version, unknown string) string {
	if v.Major == 0 {
		return unknown
	}
	return v.String()
}

// Package drain implements `kubectl graceful drain node`: a preflight that
// says beforehand what will block a drain (PodDisruptionBudgets, pods that
// need --force, --delete-emptydir-data or --ignore-daemonsets, pods annotated
// not to be disrupted), then a drain built on k8s.io/kubectl/pkg/drain that
// shows, per pod, why an eviction is waiting (the 429's DisruptionBudget
// causes) and what is left when it stops early.
//
// The preflight (Preflight) is pure: it reads objects gathered beforehand
// (Gather) and never calls the API server, so it is tested with plain objects.
package drain

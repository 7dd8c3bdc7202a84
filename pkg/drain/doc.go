// Package drain is the library behind `kubectl graceful drain node`: a
// preflight that says beforehand what will block a drain (PodDisruptionBudgets,
// pods that need --force, --delete-emptydir-data or --ignore-daemonsets, pods
// annotated not to be disrupted), then a drain that chooses the pods with
// k8s.io/kubectl/pkg/drain's filters and evicts them with its own loop
// (engine.go, evict_pod.go: the Eviction API with UID preconditions, retries
// paced by the budgets' watch, a pod gone only once the node's pod watch saw
// it leave), recording per pod why an eviction is waiting (the 429's
// DisruptionBudget causes) and what is left when it stops early.
//
// The preflight is pure and has its own package, pkg/drain/preflight: it
// reads objects gathered beforehand and never changes the cluster.
// The Drainer prints nothing: it tells its Events, a struct of optional
// callbacks, what happens (preflight ready, pod changed, node done) and
// returns each node's NodeResult. The
// text and JSON renderers are in internal/drain/render; the command, its flags and
// its terminal handling in cmd/kubectl-graceful.
package drain

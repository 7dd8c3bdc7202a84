// Package inspect holds the checks of `kubectl graceful audit`: what makes a
// rollout or a node drain drop requests, read from workload specs, Services,
// PodDisruptionBudgets, HorizontalPodAutoscalers, Ingresses and load
// balancer objects. It does no I/O: callers fill an Inventory (from
// manifests or a live cluster, see internal/inspect/load) and call Audit, or
// PodFindings for one pod's own spec.
//
// What it offers other programs is what it exports: the Inventory and its
// Add methods, Audit and its Options, the Report (the object of
// `audit -o json`) and the catalogue (Checks, Lookup). What pkg/ offers as
// a whole, and what stays internal, is stated once in ARCHITECTURE.md
// ("Layout").
//
// # Where a check goes
//
// A check is one declaration in the file of its topic:
//
//	var myCheck = register(&Check{
//		ID:          "my-check",          // stable kebab-case, used by --skip and annotations
//		Topic:       topicTermination,    // where the docs list it
//		Severity:    SeverityWarning,     // default severity
//		Summary:     "one line: what it finds and what that breaks",
//		Explanation: Explanation{Why: "...", Fix: "...", Source: "Kubernetes source of the rule"},
//		Needs:       []Input{InputServices}, // inputs without which it is skipped
//		run:         func(s *scope, c *Check) []Finding { ... },
//	})
//
// plus its unit test beside the others (checks_test.go or a file of its
// own). Files by topic: timing.go and prestop_hooks.go (grace period and
// preStop), sidecar.go (container order at termination), lb.go (load
// balancer draining), probes.go, pdb.go, rollout.go. Helpers that say which
// Services and PDBs apply to a workload are in match.go.
//
// Nothing else lists checks: the catalogue (catalogue.go) orders them,
// `audit explain`, SARIF rules and the check table of docs/audit.md are
// made from it. After adding or changing a check run
// `make docs` (or `go generate ./pkg/inspect`); a test fails while the
// committed docs differ from the catalogue. The Kubernetes facts behind the
// checks are written up in docs/audit.md.
package inspect

//go:generate go run ../../hack/checkdocs -root ../..

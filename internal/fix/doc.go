// Package fix turns the findings of an audit into one coherent change per
// object and applies it to the manifests the objects were read from.
//
// NewPlan computes, per workload, a preStop delay and a grace period that
// agree with each other (preStop = max(current, floor); grace = preStop +
// the app's shutdown time + a margin, never lowered), per
// PodDisruptionBudget the settings that let drains proceed, and the new
// budgets that workloads with two or more replicas lack. Findings with no
// safe mechanical fix are listed as Manual with the explanation's one-line
// fix.
//
// Edit applies a plan to the bytes of one manifest file. The edits are made
// with sigs.k8s.io/kustomize/kyaml's RNode API; only the lines of the
// changed nodes are then spliced into the original text, so that comments,
// key order, quoting, indentation and document separators outside them stay
// byte for byte as they were. The package does no I/O and prints nothing.
package fix

// Package gcpolicy sets the Go garbage collector's policy of a short-lived
// command-line process, from the process's very start: imported for its
// side effect (import _ ".../internal/gcpolicy") by the plugin and by the
// benchmark's floor, so that both run under the same policy.
//
// By default the collector starts a cycle each time the heap doubles from
// a 4 MB minimum: during package initialisation (client-go's schemes) and
// a small audit it runs several cycles that free little, a fifth of the
// process's CPU time. Here the heap-growth trigger is off and a soft
// memory limit (MemoryLimit) decides instead: a run whose heap stays under
// the limit collects never, a larger one collects as the limit nears, so
// the peak stays bounded (the Go runtime caps the collector at half the
// CPU should the live heap itself pass the limit). GOGC or GOMEMLIMIT in
// the environment (https://pkg.go.dev/runtime#hdr-Environment_Variables)
// leave the runtime's own settings untouched. A long-running command
// (watch, drain) calls Restore once it knows it is one: its garbage would
// otherwise accumulate up to the limit and stay resident.
//
// It pays (bench/RESULTS.md 2026-12-01; the bar is 10 % of the
// audit's CPU or wall time): `audit -f` over 2,400 manifest documents took
// 0.56-0.63 s of CPU (user+sys, medians of two batches of 10 runs) against
// 0.78-0.84 s under the runtime's defaults, 25-28 % less, for 122 MB of
// peak RSS against 94 MB; wall time was within the noise of a loaded
// machine.
package gcpolicy

import (
	"math"
	"os"
	"runtime/debug"
)

// MemoryLimit is the soft limit on the Go runtime's memory, in bytes
// (heap, stacks and runtime metadata; not the executable's mapped pages).
const MemoryLimit = 64 << 20

// The import path sorts before k8s.io/* and sigs.k8s.io/*, and this
// package depends only on the standard library, so since Go 1.21 its init
// runs before theirs (the spec's package initialisation order): their
// allocations already fall under the policy.
func init() {
	if fromEnvironment() {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(MemoryLimit)
}

// Restore puts back the runtime's defaults (a cycle each time the heap
// doubles, GOGC=100; no memory limit), unless GOGC or GOMEMLIMIT set them.
func Restore() {
	if fromEnvironment() {
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

func fromEnvironment() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

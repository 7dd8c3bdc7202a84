package fix

import "github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"

// explainedFix is the one-line fix of a check's explanation (`kubectl
// graceful audit explain ID`, "How to fix"). It is the one place this
// package reads the catalogue's texts.
func explainedFix(check string) string {
	c := inspect.Lookup(check)
	if c == nil {
		return ""
	}
	return c.Explanation.Fix
}

// The checks whose findings a plan fixes mechanically. Every other check
// is listed as manual.
const (
	checkPreStopExceedsGrace   = "prestop-exceeds-grace"
	checkShutdownBudget        = "shutdown-budget-exceeds-grace"
	checkGracePeriodZero       = "grace-period-zero"
	checkMissingPreStop        = "missing-prestop"
	checkPreStopTooShort       = "prestop-too-short"
	checkSleepBinaryMissing    = "prestop-sleep-binary-missing"
	checkPreferNativeSleep     = "prefer-native-sleep"
	checkPDBMissing            = "pdb-missing"
	checkPDBBlocksEviction     = "pdb-blocks-eviction"
	checkPDBUnhealthyEviction  = "pdb-unhealthy-eviction-policy"
	checkPDBWithoutScale       = "pdb-custom-resource-without-scale"
	checkGracePeriodLong       = "grace-period-long"
	checkUnknownField          = "unknown-field"
	checkFieldNewerThanTarget  = "field-newer-than-target"
	reasonNeverLowerGrace      = "a fix never lowers a grace period: only what the app needs can tell how far"
	reasonNoSleepBelowNative   = "the image has no sleep binary and the target Kubernetes version does not take this native sleep (1.30+; 0 s: 1.33+)"
	reasonUnknownField         = "the object has a field its API type does not have, where --fix would edit: kubectl apply fails on it, and no other fix is planned for the object until the field is renamed or removed"
	reasonStopsFirst           = "the preStop hook stops the server before it sleeps: its sleep is no delay, and reordering the script is for its author"
	reasonScriptHook           = "the preStop hook is a script that does more than sleep: rewriting it is not mechanical"
	reasonGraceZeroSuppressed  = "terminationGracePeriodSeconds is 0 and grace-period-zero is not being fixed: a preStop delay would never run"
	reasonZeroFloor            = "--prestop-floor is 0: no delay to add"
	reasonZeroSleepUnsupported = "a 0 s native sleep needs Kubernetes 1.33"
	reasonTargetField          = "the target Kubernetes version does not take a field of this container that an exec sleep would not replace"
)

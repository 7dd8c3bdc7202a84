package inspect

// catalogue is every check in its documented order (docs/audit.md and
// ../shared/spec/audit-checks.md).
var catalogue = []*Check{
	prestopExceedsGrace,
	shutdownBudgetExceedsGrace,
	missingPreStop,
	preStopTooShort,
	preStopSleepBinaryMissing,
	preferNativeSleep,
	gracePeriodZero,
	gracePeriodLong,
	lbDeregistrationExceedsGrace,
	missingReadinessProbe,
	readinessProbePortUnknown,
	pdbMissing,
	pdbBlocksEviction,
	pdbNoDisruptionsNow,
	pdbOverlap,
	pdbSelectsNothing,
	pdbUnhealthyEvictionPolicy,
	singleReplica,
	rolloutDowntime,
	minReadySecondsZero,
	removedAPIVersion,
}

// Package cliutil holds what every command shares: exit codes and the
// one-line error form that main prints.
package cliutil

import (
	"errors"
	"fmt"
)

// Exit codes shared by every command (documented in README.md).
const (
	// ExitOK means the command did its job and found nothing at or above the
	// failure threshold.
	ExitOK = 0
	// ExitError means the command could not do its job: bad input, an
	// unreachable cluster, a missing object, a forbidden request.
	ExitError = 1
	// ExitRisk means the command did its job and the answer is bad: audit
	// findings at or above --fail-on, a race seen by watch, a blocked drain.
	ExitRisk = 2
	// ExitBudgetOverridden means drain node --delete-after drained every
	// node and deleted at least one pod its PodDisruptionBudget still
	// refused to let go: done, by overriding a budget.
	ExitBudgetOverridden = 3
)

// ExitCodeError carries an exit code through cobra's RunE up to main, which is
// the only place that calls os.Exit. A nil Err means the command already
// printed its result and only the code is left to report.
type ExitCodeError struct {
	Code int
	Err  error
}

// Error returns the wrapped message, or a generic one when Err is nil.
func (e *ExitCodeError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitCodeError) Unwrap() error { return e.Err }

// Risk returns an error that makes main exit with ExitRisk without printing
// anything more: the command's output already said what was found.
func Risk() error { return &ExitCodeError{Code: ExitRisk} }

// CodeOf returns the exit code for err: 0 for nil, the code of an
// ExitCodeError, and ExitError for any other error.
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *ExitCodeError
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitError
}

// Message returns the line main prints for err, or "" when there is nothing
// left to print (an ExitCodeError without a wrapped error).
func Message(err error) string {
	if e := (*ExitCodeError)(nil); err == nil || errors.As(err, &e) && e.Err == nil {
		return ""
	}
	return "error: " + OneLine(err.Error())
}

package probe

import data "github.com/kubectl-graceful/kubectl-graceful/pkg/probe"

// What the prober measures is pkg/probe's data, which the watch's Timeline
// keeps and its verdict judges; these names let the prober and its callers
// say it as before.
type (
	Kind   = data.Kind
	Result = data.Result
	Bucket = data.Bucket
)

// The kinds of outcome (data.OK, ...).
const (
	OK       = data.OK
	Status   = data.Status
	Refused  = data.Refused
	Reset    = data.Reset
	Timeout  = data.Timeout
	NoAnswer = data.NoAnswer
	Other    = data.Other
)

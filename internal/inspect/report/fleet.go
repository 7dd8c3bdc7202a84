package report

import (
	"fmt"
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// ClusterReport is one cluster's part of a fleet audit: the report, or the
// error that kept the cluster from being audited (unreachable, credentials
// refused, workloads forbidden).
type ClusterReport struct {
	// Cluster is the kubeconfig context the cluster was reached through.
	Cluster string
	// Report is nil when Err is set.
	Report *inspect.Report
	Err    error
}

// Fleet is the audit of several clusters, in the shape of -o json and
// -o yaml with --contexts: the findings and skipped checks of every cluster
// audited, each with a cluster field, the summed summary, and one entry per
// cluster saying whether it was audited.
type Fleet struct {
	Findings []FleetFinding  `json:"findings"`
	Skipped  []FleetSkipped  `json:"skipped"`
	Summary  inspect.Summary `json:"summary"`
	Clusters []FleetCluster  `json:"clusters"`
}

// FleetFinding is a finding and the cluster (kubeconfig context) it was
// found in.
type FleetFinding struct {
	Cluster string `json:"cluster"`
	inspect.Finding
}

// FleetSkipped is a check skipped in one cluster.
type FleetSkipped struct {
	Cluster string `json:"cluster"`
	inspect.Skipped
}

// FleetCluster says whether one cluster was audited: its summary, or the
// error (one line) that kept it from being audited.
type FleetCluster struct {
	Cluster string           `json:"cluster"`
	Error   string           `json:"error,omitempty"`
	Summary *inspect.Summary `json:"summary,omitempty"`
}

// NewFleet merges per-cluster results, in the order given, into one fleet
// report.
func NewFleet(clusters []ClusterReport) *Fleet {
	f := &Fleet{Findings: []FleetFinding{}, Skipped: []FleetSkipped{}, Clusters: []FleetCluster{}}
	for _, c := range clusters {
		if c.Err != nil {
			f.Clusters = append(f.Clusters, FleetCluster{Cluster: c.Cluster, Error: cliutil.OneLine(c.Err.Error())})
			continue
		}
		r := c.Report
		s := r.Summary
		f.Clusters = append(f.Clusters, FleetCluster{Cluster: c.Cluster, Summary: &s})
		for _, x := range r.Findings {
			f.Findings = append(f.Findings, FleetFinding{Cluster: c.Cluster, Finding: x})
		}
		for _, x := range r.Skipped {
			f.Skipped = append(f.Skipped, FleetSkipped{Cluster: c.Cluster, Skipped: x})
		}
		add(&f.Summary, s)
	}
	return f
}

// add sums the counts of s into total.
func add(total *inspect.Summary, s inspect.Summary) {
	total.Workloads += s.Workloads
	total.Objects += s.Objects
	total.Findings += s.Findings
	total.Errors += s.Errors
	total.Warnings += s.Warnings
	total.Infos += s.Infos
	total.Skipped += s.Skipped
	total.Suppressed += s.Suppressed
}

// Audited returns how many clusters were audited.
func (f *Fleet) Audited() int {
	n := 0
	for _, c := range f.Clusters {
		if c.Error == "" {
			n++
		}
	}
	return n
}

// AtOrAbove reports whether any finding of any cluster is at or above
// severity min ("" never).
func (f *Fleet) AtOrAbove(min inspect.Severity) bool { return f.report().AtOrAbove(min) }

// report is the findings of every cluster as one report.
func (f *Fleet) report() *inspect.Report {
	r := &inspect.Report{}
	for _, x := range f.Findings {
		r.Findings = append(r.Findings, x.Finding)
	}
	return r
}

// WriteFleet prints f in format (as Write does for one cluster).
func WriteFleet(w io.Writer, f *Fleet, format string, color bool, width int) error {
	return encode(w, format, f, func() any { return FleetSARIF(f) }, func() error { return FleetTableWidth(w, f, color, width) })
}

// FleetTableWidth prints the findings of every cluster with a CLUSTER
// column (named on the first row of each cluster), the skipped checks per
// cluster, and the summed summary with how many clusters were audited, for
// a terminal width columns wide (0: not a terminal), as TableWidth does
// for one cluster. Clusters that were not audited are counted here; their
// errors are the caller's to print.
func FleetTableWidth(w io.Writer, f *Fleet, color bool, width int) error {
	var rows [][]string
	for i, x := range f.Findings {
		cluster, obj := "", ""
		newCluster := i == 0 || x.Cluster != f.Findings[i-1].Cluster
		if newCluster {
			cluster = termsafe.Escape(x.Cluster)
		}
		if newCluster || x.Object != f.Findings[i-1].Object {
			obj = termsafe.Escape(x.Object.String())
		}
		rows = append(rows, append([]string{cluster}, findingRow(x.Finding, obj, color)...))
	}
	var lines []string
	for _, s := range f.Skipped {
		lines = append(lines, fmt.Sprintf("skipped %s in %s: %s", s.Check, termsafe.Escape(s.Cluster), termsafe.Escape(s.Message)))
	}
	line := Summary(&inspect.Report{Summary: f.Summary})
	lines = append(lines, fmt.Sprintf("%s; %d of %d clusters audited", line, f.Audited(), len(f.Clusters)))
	header := []string{"CLUSTER", "OBJECT", "CONTAINER", "SEVERITY", "CHECK", "MESSAGE"}
	return writeTable(w, header, rows, width, lines)
}

// SarifInvocation is one run of the tool: whether it did all its job, and
// notifications about what it could not do.
type SarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []SarifNotification `json:"toolExecutionNotifications,omitempty"`
}

// SarifNotification is a message about the tool's execution.
type SarifNotification struct {
	Level   string       `json:"level"`
	Message SarifMessage `json:"message"`
}

// FleetSARIF converts f to one SARIF run: each result carries its cluster
// in properties.cluster (and in its message), and clusters that could not
// be audited are error notifications of an unsuccessful invocation.
func FleetSARIF(f *Fleet) *SarifLog {
	log := SARIF(f.report())
	run := &log.Runs[0]
	for i := range run.Results {
		c := f.Findings[i].Cluster
		run.Results[i].Properties = map[string]string{"cluster": c}
		run.Results[i].Message.Text = c + ": " + run.Results[i].Message.Text
	}
	inv := SarifInvocation{ExecutionSuccessful: true}
	for _, c := range f.Clusters {
		if c.Error != "" {
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
				SarifNotification{Level: "error", Message: SarifMessage{Text: c.Cluster + ": " + c.Error}})
		}
	}
	run.Invocations = []SarifInvocation{inv}
	return log
}

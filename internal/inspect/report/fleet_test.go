package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func sampleFleet() *Fleet {
	return NewFleet([]ClusterReport{
		{Cluster: "prod-eu", Report: sample()},
		{Cluster: "prod\x1b[2J-us", Err: errors.New("cannot reach the cluster\nof context")},
		{Cluster: "staging", Report: sample()},
	})
}

// Every finding and skipped check carries its cluster in json and yaml;
// clusters not audited carry their error (one line); the summary sums the
// clusters audited.
func TestFleetJSONAndYAMLNameClusters(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		var buf bytes.Buffer
		if err := WriteFleet(&buf, sampleFleet(), format, false, 0); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		if format == "yaml" {
			var err error
			if data, err = yaml.YAMLToJSON(data); err != nil {
				t.Fatal(err)
			}
		}
		var doc struct {
			Findings []map[string]any
			Skipped  []map[string]any
			Summary  map[string]float64
			Clusters []map[string]any
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(doc.Findings) != 4 || doc.Findings[0]["cluster"] != "prod-eu" || doc.Findings[3]["cluster"] != "staging" || doc.Findings[0]["check"] != "missing-prestop" {
			t.Errorf("%s findings: %v", format, doc.Findings)
		}
		if len(doc.Skipped) != 2 || doc.Skipped[1]["cluster"] != "staging" {
			t.Errorf("%s skipped: %v", format, doc.Skipped)
		}
		if doc.Summary["findings"] != 4 || doc.Summary["workloads"] != 2 {
			t.Errorf("%s summary: %v", format, doc.Summary)
		}
		if len(doc.Clusters) != 3 || doc.Clusters[1]["error"] != "cannot reach the cluster of context" || doc.Clusters[0]["error"] != nil {
			t.Errorf("%s clusters: %v", format, doc.Clusters)
		}
	}
}

// The table has a CLUSTER column, named on each cluster's first row, with
// names escaped, and counts the clusters audited.
func TestFleetTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFleet(&buf, sampleFleet(), "table", false, 0); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(strings.TrimSpace(lines[0]), "CLUSTER") || !strings.HasPrefix(strings.TrimSpace(lines[1]), "prod-eu") ||
		strings.Contains(lines[2], "prod-eu") || !strings.HasPrefix(strings.TrimSpace(lines[3]), "staging") {
		t.Errorf("CLUSTER column:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("unescaped control character in:\n%q", out)
	}
	if !strings.Contains(out, "skipped pdb-overlap in staging: forbidden") || !strings.Contains(out, "4 findings") || !strings.Contains(out, "2 of 3 clusters audited") {
		t.Errorf("skipped lines or summary:\n%s", out)
	}
}

// SARIF: one run, each result's cluster in properties (and its message),
// the cluster that was not audited as an error notification.
func TestFleetSARIF(t *testing.T) {
	log := FleetSARIF(sampleFleet())
	run := log.Runs[0]
	if len(run.Results) != 4 || run.Results[3].Properties["cluster"] != "staging" || !strings.HasPrefix(run.Results[0].Message.Text, "prod-eu: ") {
		t.Errorf("results: %+v", run.Results)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful || len(run.Invocations[0].ToolExecutionNotifications) != 1 {
		t.Errorf("invocations: %+v", run.Invocations)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Moved from pkg/inspect with the functions they test.
func TestValidateIDs(t *testing.T) {
	if err := validateIDs([]string{"missing-prestop", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("validateIDs accepted an unknown ID: %v", err)
	}
}

func TestFailOn(t *testing.T) {
	r := &inspect.Report{Findings: []inspect.Finding{{Severity: inspect.SeverityWarning}}}
	for in, want := range map[string]bool{"error": false, "warning": true, "info": true, "none": false} {
		sev, err := parseFailOn(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.AtOrAbove(sev); got != want {
			t.Errorf("--fail-on %s with a warning: %v, want %v", in, got, want)
		}
	}
	if _, err := parseFailOn("fatal"); err == nil {
		t.Errorf("parseFailOn accepted fatal")
	}
}

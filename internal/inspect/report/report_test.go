package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

func sample() *inspect.Report {
	return &inspect.Report{
		Findings: []inspect.Finding{
			{Check: "missing-prestop", Severity: inspect.SeverityWarning, Object: inspect.ObjectRef{Kind: "Deployment", Namespace: "shop", Name: "web"},
				Container: "app", Message: "no preStop", Fix: "kubectl patch ...", Source: &inspect.Source{File: "k8s/web.yaml", Line: 12}},
			{Check: "pdb-no-disruptions-now", Severity: inspect.SeverityWarning, Object: inspect.ObjectRef{Kind: "PodDisruptionBudget", Namespace: "shop", Name: "web\x1b[2J"},
				Message: "0 allowed"},
		},
		Skipped: []inspect.Skipped{{Check: "pdb-overlap", Reason: inspect.SkipInputUnavailable, Message: "forbidden"}},
		Summary: inspect.Summary{Workloads: 1, Objects: 3, Findings: 2, Warnings: 2, Skipped: 1},
	}
}

// TestSARIFStructure validates the parts of the SARIF 2.1.0 schema that
// code-scanning UIs require: version, $schema, runs[].tool.driver with
// unique rule IDs, results whose ruleId exists at ruleIndex, a level from
// the allowed set, a message text, and a physical location with a
// 1-based startLine for manifest input.
func TestSARIFStructure(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample(), "sarif", false, 0); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	if log["version"] != "2.1.0" || !strings.Contains(log["$schema"].(string), "sarif-2.1.0") {
		t.Fatalf("version/$schema: %v %v", log["version"], log["$schema"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("runs: %d", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] != "kubectl-graceful" {
		t.Errorf("driver name %v", driver["name"])
	}
	rules := driver["rules"].([]any)
	if len(rules) != len(inspect.Checks()) {
		t.Errorf("%d rules, want one per check (%d)", len(rules), len(inspect.Checks()))
	}
	ids := map[string]int{}
	for i, r := range rules {
		rule := r.(map[string]any)
		id := rule["id"].(string)
		if _, dup := ids[id]; dup {
			t.Errorf("duplicate rule %s", id)
		}
		ids[id] = i
		if rule["shortDescription"].(map[string]any)["text"] == "" {
			t.Errorf("rule %s has no shortDescription", id)
		}
	}
	results := run["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}
	for _, r := range results {
		res := r.(map[string]any)
		id := res["ruleId"].(string)
		if idx, ok := ids[id]; !ok || int(res["ruleIndex"].(float64)) != idx {
			t.Errorf("result %s: ruleIndex %v does not point at its rule", id, res["ruleIndex"])
		}
		switch res["level"] {
		case "error", "warning", "note", "none":
		default:
			t.Errorf("level %v is not a SARIF level", res["level"])
		}
		if res["message"].(map[string]any)["text"] == "" {
			t.Errorf("result %s has no message", id)
		}
	}
	loc := results[0].(map[string]any)["locations"].([]any)[0].(map[string]any)
	phys := loc["physicalLocation"].(map[string]any)
	if phys["artifactLocation"].(map[string]any)["uri"] != "k8s/web.yaml" || phys["region"].(map[string]any)["startLine"] != float64(12) {
		t.Errorf("physical location = %v", phys)
	}
	if _, ok := results[1].(map[string]any)["locations"].([]any)[0].(map[string]any)["physicalLocation"]; ok {
		t.Errorf("a live finding has no file, so no physicalLocation")
	}
}

func TestJSONAndYAMLShape(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		var buf bytes.Buffer
		if err := Write(&buf, sample(), format, false, 0); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Findings []struct {
				Check, Severity, Container, Message, Fix string
				Object                                   struct{ Kind, Namespace, Name string }
				Source                                   *struct {
					File string
					Line int
				}
			}
			Skipped []struct{ Check, Reason, Message string }
			Summary struct{ Findings, Warnings int }
		}
		if err := yaml.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(got.Findings) != 2 || got.Findings[0].Object.Name != "web" || got.Findings[0].Source.Line != 12 ||
			got.Skipped[0].Message != "forbidden" || got.Skipped[0].Reason != "input-unavailable" || got.Summary.Warnings != 2 {
			t.Errorf("%s output = %+v", format, got)
		}
	}
}

func TestTable(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample(), "", false, 0); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"shop/Deployment/web", "missing-prestop", "no preStop", `web\x1b[2J`, "skipped pdb-overlap: forbidden", "2 findings (0 errors, 2 warnings, 0 info)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequence reached the table without colour:\n%q", out)
	}
	buf.Reset()
	if err := Write(&buf, sample(), "table", true, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\x1b[33mwarning\x1b[0m") {
		t.Errorf("colour on: warning not yellow:\n%q", buf.String())
	}
}

// One object with a control character in its image once made -o yaml fail
// for the whole report; no format may fail or write it raw.
func TestEveryFormatEscapesHostileText(t *testing.T) {
	hostile := "img\x1b]0;pwned\a\u009b2J\u202eexe"
	r := sample()
	r.Findings[0].Message = "image " + hostile + " has no sleep"
	r.Findings[0].Object.Name = "web" + hostile
	r.Findings[0].Container = hostile
	r.Skipped[0].Message = hostile
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, r, format, false, 0); err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		for _, c := range buf.String() {
			if c != '\n' && termsafe.Unsafe(c) {
				t.Errorf("-o %s wrote %U raw:\n%s", format, c, buf.String())
				break
			}
		}
	}
}

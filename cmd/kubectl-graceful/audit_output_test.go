package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// -o yaml is the YAML rendering of the very object -o json prints: the
// same findings with the same fix, the combined plan's one command per
// object (-o json carried each check's own patch, which -o yaml did not).
func TestAuditJSONAndYAMLAreOneObject(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "broken-prestop-exceeds-grace.yaml")
	decode := func(format string) (any, string) {
		out, stderr, code := runCLI(t, "", "audit", "-f", file, "-o", format, "--fail-on", "none")
		if code != 0 {
			t.Fatalf("audit -o %s: exit %d, stderr %q", format, code, stderr)
		}
		data := []byte(out)
		if format == "yaml" {
			var err error
			if data, err = yaml.YAMLToJSON(data); err != nil {
				t.Fatalf("-o yaml is not YAML: %v", err)
			}
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		return doc, out
	}
	fromJSON, raw := decode("json")
	fromYAML, _ := decode("yaml")
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Errorf("-o yaml and -o json differ:\njson %v\nyaml %v", fromJSON, fromYAML)
	}
	var r struct {
		Findings []struct {
			Check string `json:"check"`
			Fix   string `json:"fix"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatal(err)
	}
	// The two preStop findings of slow-prestop are fixed by one change of
	// its pod template: the plan's one command, in -o json too.
	fixes := map[string]string{}
	for _, f := range r.Findings {
		fixes[f.Check] = f.Fix
	}
	a, b := fixes["prestop-exceeds-grace"], fixes["prefer-native-sleep"]
	if a == "" || a != b || !strings.Contains(a, `"terminationGracePeriodSeconds":60`) {
		t.Errorf("-o json: prestop-exceeds-grace fix %q, prefer-native-sleep fix %q; want both the plan's one command", a, b)
	}
}

package report

import (
	"github.com/kubectl-graceful/kubectl-graceful/internal/version"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// SARIF 2.1.0 (OASIS, https://docs.oasis-open.org/sarif/sarif/v2.1.0/),
// the subset code-scanning UIs read: one run, one rule per check ID, one
// result per finding with a physical location for manifest input.

// SARIFSchema is the JSON schema URI of SARIF 2.1.0.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// SarifLog is the top-level SARIF object.
type SarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SarifRun `json:"runs"`
}

// SarifRun is one run of the tool.
type SarifRun struct {
	Tool    SarifTool     `json:"tool"`
	Results []SarifResult `json:"results"`
	// Invocations, in a fleet audit, say which clusters could not be
	// audited (one notification each).
	Invocations []SarifInvocation `json:"invocations,omitempty"`
}

// SarifTool describes kubectl-graceful and its rules.
type SarifTool struct {
	Driver SarifDriver `json:"driver"`
}

// SarifDriver is the tool component with the rule catalogue.
type SarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []SarifRule `json:"rules"`
}

// SarifRule is one check of the catalogue.
type SarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     SarifMessage      `json:"shortDescription"`
	FullDescription      SarifMessage      `json:"fullDescription"`
	Help                 SarifMessage      `json:"help"`
	DefaultConfiguration SarifRuleConfig   `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties,omitempty"`
}

// SarifRuleConfig gives a rule's default level.
type SarifRuleConfig struct {
	Level string `json:"level"`
}

// SarifMessage is SARIF's text wrapper.
type SarifMessage struct {
	Text string `json:"text"`
}

// SarifResult is one finding.
type SarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   SarifMessage    `json:"message"`
	Locations []SarifLocation `json:"locations,omitempty"`
	// Properties carry "cluster" in a fleet audit.
	Properties map[string]string `json:"properties,omitempty"`
}

// SarifLocation holds a physical (file, line) and a logical (object)
// location.
type SarifLocation struct {
	PhysicalLocation *SarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []SarifLogical         `json:"logicalLocations,omitempty"`
}

// SarifPhysicalLocation is a file and region.
type SarifPhysicalLocation struct {
	ArtifactLocation SarifArtifact `json:"artifactLocation"`
	Region           *SarifRegion  `json:"region,omitempty"`
}

// SarifArtifact is a file URI (relative paths as given on the command line).
type SarifArtifact struct {
	URI string `json:"uri"`
}

// SarifRegion is a 1-based start line.
type SarifRegion struct {
	StartLine int `json:"startLine"`
}

// SarifLogical names the Kubernetes object (namespace/Kind/name).
type SarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifLevel maps severities to SARIF levels (error, warning, note).
func sarifLevel(s inspect.Severity) string {
	switch s {
	case inspect.SeverityError:
		return "error"
	case inspect.SeverityWarning:
		return "warning"
	}
	return "note"
}

// SARIF converts r to a SARIF 2.1.0 log with every check as a rule.
func SARIF(r *inspect.Report) *SarifLog {
	driver := SarifDriver{Name: "kubectl-graceful", Version: version.Get().Version,
		InformationURI: "https://github.com/kubectl-graceful/kubectl-graceful/blob/main/docs/audit.md"}
	index := map[string]int{}
	for i, c := range inspect.Checks() {
		index[c.ID] = i
		d := c.Explanation
		driver.Rules = append(driver.Rules, SarifRule{
			ID: c.ID, Name: c.ID,
			ShortDescription:     SarifMessage{Text: c.Summary},
			FullDescription:      SarifMessage{Text: d.Why},
			Help:                 SarifMessage{Text: d.Fix + " Source: " + d.Source},
			DefaultConfiguration: SarifRuleConfig{Level: sarifLevel(c.Severity)},
		})
	}
	results := []SarifResult{}
	for _, f := range r.Findings {
		res := SarifResult{RuleID: f.Check, RuleIndex: index[f.Check], Level: sarifLevel(f.Severity),
			Message: SarifMessage{Text: findingText(f)}}
		loc := SarifLocation{LogicalLocations: []SarifLogical{{FullyQualifiedName: f.Object.String(), Kind: "resource"}}}
		if f.Source != nil && f.Source.File != "" {
			loc.PhysicalLocation = &SarifPhysicalLocation{ArtifactLocation: SarifArtifact{URI: f.Source.File}}
			if f.Source.Line > 0 {
				loc.PhysicalLocation.Region = &SarifRegion{StartLine: f.Source.Line}
			}
		}
		res.Locations = []SarifLocation{loc}
		results = append(results, res)
	}
	return &SarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []SarifRun{{Tool: SarifTool{Driver: driver}, Results: results}}}
}

func findingText(f inspect.Finding) string {
	s := f.Object.String()
	if f.Container != "" {
		s += " container " + f.Container
	}
	s += ": " + f.Message
	if f.Fix != "" {
		s += " Fix: " + f.Fix
	}
	return s
}

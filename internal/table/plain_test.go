package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// tablewriterPlain is how the Plain style was drawn before renderPlain:
// tablewriter without borders or separators. It is the reference.
func tablewriterPlain(t *testing.T, header []string, rows [][]string) string {
	t.Helper()
	var b bytes.Buffer
	tbl := tablewriter.NewTable(&b, append(cellOptions(),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off}, Lines: tw.Lines{ShowHeaderLine: tw.Off}},
		})))...)
	tbl.Header(header)
	if err := tbl.Bulk(rows); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Render(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// The Plain style is byte for byte what tablewriter draws, for the cells
// a finding table holds: ANSI colours, East Asian wide characters, escaped
// control bytes, empty cells, cells wrapped onto several lines, a row
// shorter than the header.
func TestPlainMatchesTablewriter(t *testing.T) {
	header := []string{"OBJECT", "CONTAINER", "SEVERITY", "CHECK", "MESSAGE"}
	cases := map[string][][]string{
		"findings": {
			{"shop/Deployment/checkout", "app", "warning", "missing-prestop", "behind Service checkout with no preStop"},
			{"", "app", "\x1b[31merror\x1b[0m", "grace-too-short", "terminationGracePeriodSeconds 5 < preStop sleep 10"},
			{"", "", "\x1b[36minfo\x1b[0m", "pdb-missing", "2 replicas and no PodDisruptionBudget"},
		},
		"wide and escaped": {
			{"商店/Deployment/结账", "容器", "warning", "x", `name \x1b[2J with "quotes"`},
			{"a", "b", "c", "d", ""},
		},
		"wrapped cells": {
			{"shop/Deployment/web", "app", "warning", "missing-prestop", "behind Service web\nwith no preStop hook:\nSIGTERM may come first"},
			{"two\nlines", "", "warning", "x", "short"},
		},
		"short row": {
			{"only", "two"},
		},
	}
	for name, rows := range cases {
		t.Run(name, func(t *testing.T) {
			want := tablewriterPlain(t, header, rows)
			if got := renderPlain(header, rows); got != want {
				t.Errorf("renderPlain:\n%s\ntablewriter:\n%s", got, want)
			}
		})
	}
}

package table

import "testing"

// The Plain style's layout, for the cells a finding table holds: ANSI
// colours (zero columns wide), East Asian wide characters (two), escaped
// control bytes, empty cells, cells wrapped onto several lines, a row
// shorter than the header. These were the outputs of tablewriter and of
// the hand-written renderer that drew Plain before it, byte for byte.
func TestPlainLayout(t *testing.T) {
	header := []string{"OBJECT", "CONTAINER", "SEVERITY", "CHECK", "MESSAGE"}
	cases := map[string]struct {
		rows [][]string
		want string
	}{
		"findings": {[][]string{
			{"shop/Deployment/checkout", "app", "warning", "missing-prestop", "behind Service checkout with no preStop"},
			{"", "app", "\x1b[31merror\x1b[0m", "grace-too-short", "terminationGracePeriodSeconds 5 < preStop sleep 10"},
			{"", "", "\x1b[36minfo\x1b[0m", "pdb-missing", "2 replicas and no PodDisruptionBudget"},
		}, "" +
			" OBJECT                    CONTAINER  SEVERITY  CHECK            MESSAGE\n" +
			" shop/Deployment/checkout  app        warning   missing-prestop  behind Service checkout with no preStop\n" +
			"                           app        \x1b[31merror\x1b[0m     grace-too-short  terminationGracePeriodSeconds 5 < preStop sleep 10\n" +
			"                                      \x1b[36minfo\x1b[0m      pdb-missing      2 replicas and no PodDisruptionBudget\n"},
		"wide and escaped": {[][]string{
			{"商店/Deployment/结账", "容器", "warning", "x", `name \x1b[2J with "quotes"`},
			{"a", "b", "c", "d", ""},
		}, "" +
			" OBJECT                CONTAINER  SEVERITY  CHECK  MESSAGE\n" +
			" 商店/Deployment/结账  容器       warning   x      name \\x1b[2J with \"quotes\"\n" +
			" a                     b          c         d\n"},
		"wrapped cells": {[][]string{
			{"shop/Deployment/web", "app", "warning", "missing-prestop", "behind Service web\nwith no preStop hook:\nSIGTERM may come first"},
			{"two\nlines", "", "warning", "x", "short"},
		}, "" +
			" OBJECT               CONTAINER  SEVERITY  CHECK            MESSAGE\n" +
			" shop/Deployment/web  app        warning   missing-prestop  behind Service web\n" +
			"                                                            with no preStop hook:\n" +
			"                                                            SIGTERM may come first\n" +
			" two                             warning   x                short\n" +
			" lines\n"},
		"short row": {[][]string{{"only", "two"}}, "" +
			" OBJECT  CONTAINER  SEVERITY  CHECK  MESSAGE\n" +
			" only    two\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := render(header, tc.rows, Plain)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

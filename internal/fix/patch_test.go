package fix

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// TestCommands: every fixed finding of an object gets the same command,
// carrying the whole plan of that object.
func TestCommands(t *testing.T) {
	src := readExample(t, "broken-prestop-exceeds-grace.yaml") + "---\n" + readExample(t, "broken-pdb-max-unavailable-zero.yaml")
	inv, r := auditText(t, src, inspect.Version{}, inspect.DefaultOptions())
	cmds := NewPlan(inv, r.Findings, Options{PreStopFloorSeconds: 5}).Commands()
	byObject := map[string]map[string]bool{}
	for _, f := range r.Findings {
		c, ok := cmds[FindingKey(f)]
		if !ok {
			continue
		}
		k := f.Object.String()
		if f.Check == "pdb-missing" {
			k += " (new budget)"
		}
		if byObject[k] == nil {
			byObject[k] = map[string]bool{}
		}
		byObject[k][c] = true
	}
	want := map[string]string{
		"graceful-demo/Deployment/slow-prestop":              `kubectl patch deployment slow-prestop -n graceful-demo -p '{"spec":{"template":{"spec":{"containers":[{"lifecycle":{"preStop":{"exec":null,"sleep":{"seconds":40}}},"name":"api"}],"terminationGracePeriodSeconds":60}}}}'`,
		"graceful-demo/PodDisruptionBudget/locked":           `kubectl patch pdb locked -n graceful-demo --type=merge -p '{"spec":{"maxUnavailable":1,"minAvailable":null,"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`,
		"graceful-demo/Deployment/slow-prestop (new budget)": `kubectl create poddisruptionbudget slow-prestop -n graceful-demo --max-unavailable=1 --selector=app=slow-prestop && kubectl patch pdb slow-prestop -n graceful-demo --type=merge -p '{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`,
	}
	for obj, c := range want {
		if len(byObject[obj]) != 1 || !byObject[obj][c] {
			t.Errorf("%s: commands %v, want only\n%s", obj, byObject[obj], c)
		}
	}
	pod := strings.Replace(workload("Deployment", "web", 1, plainWeb), "apiVersion: apps/v1\nkind: Deployment", "apiVersion: v1\nkind: Pod", 1)
	pod = strings.Replace(pod, "spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n", "  labels:\n    app: web\nspec:\n", 1)
	pod = strings.ReplaceAll(pod, "\n      containers:", "\n  containers:")
	inv, r = auditText(t, strings.ReplaceAll(pod, "\n      ", "\n  "), inspect.Version{}, inspect.DefaultOptions())
	podCmds := NewPlan(inv, r.Findings, Options{PreStopFloorSeconds: 5}).Commands()
	if len(podCmds) == 0 {
		t.Fatalf("no command for the bare Pod's missing preStop: %+v", r.Findings)
	}
	for _, c := range podCmds {
		if !strings.HasPrefix(c, `recreate the Pod with: {"spec":{"containers":[{"lifecycle"`) {
			t.Errorf("bare Pod: %s", c)
		}
	}
}

package fix

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Commands returns, for each finding the plan fixes (keyed by check,
// object and container as in FindingKey), the one command that applies
// the whole plan of its object to a live cluster: a strategic merge
// `kubectl patch` of the workload's pod template, a merge patch of the
// PodDisruptionBudget, or `kubectl create poddisruptionbudget` for a new
// one. All findings of one object get the same command, so that they
// agree with each other and with what --fix writes into manifests. A bare
// Pod cannot be patched: its command says to recreate it with the patch.
func (p *Plan) Commands() map[string]string {
	out := map[string]string{}
	set := func(cmd string, fixes []inspect.Finding) {
		for _, f := range fixes {
			out[FindingKey(f)] = cmd
		}
	}
	for _, w := range p.Workloads {
		set(w.patchCommand(), w.Fixes)
	}
	for _, d := range p.PDBs {
		set(d.patchCommand(), d.Fixes)
	}
	for _, n := range p.NewPDBs {
		set(n.createCommand(), n.Fixes)
	}
	return out
}

// FindingKey identifies a finding by check, object and container.
func FindingKey(f inspect.Finding) string {
	return fmt.Sprintf("%s %s %s", f.Check, f.Object, f.Container)
}

func (w *WorkloadPlan) patchCommand() string {
	spec := map[string]any{}
	for _, c := range w.PreStops {
		hook := map[string]any{"exec": nil, "sleep": map[string]any{"seconds": c.Seconds}}
		if !c.Native {
			hook = map[string]any{"exec": map[string]any{"command": []string{"sleep", fmt.Sprint(c.Seconds)}}}
			if c.FromHow == prestop.HowNativeSleep {
				hook["sleep"] = nil
			}
		}
		list := "containers"
		if c.Init {
			list = "initContainers"
		}
		items, _ := spec[list].([]any)
		spec[list] = append(items, map[string]any{"name": c.Container, "lifecycle": map[string]any{"preStop": hook}})
	}
	if w.GraceSeconds != nil {
		spec["terminationGracePeriodSeconds"] = *w.GraceSeconds
	}
	path := podSpecPath(w.Object.Kind)
	var patch any = spec
	for i := len(path) - 1; i >= 0; i-- {
		patch = map[string]any{path[i]: patch}
	}
	b, _ := json.Marshal(patch)
	if w.Object.Kind == "Pod" {
		return "recreate the Pod with: " + string(b)
	}
	return fmt.Sprintf("kubectl patch %s %s -n %s -p '%s'", strings.ToLower(w.Object.Kind), w.Object.Name, w.Object.Namespace, b)
}

func (d *PDBPlan) patchCommand() string {
	spec := map[string]any{}
	if d.MaxUnavailableOne {
		spec["minAvailable"] = nil
		spec["maxUnavailable"] = 1
	}
	if d.MinAvailable != nil {
		spec["maxUnavailable"] = nil
		spec["minAvailable"] = *d.MinAvailable
	}
	if d.AlwaysAllow {
		spec["unhealthyPodEvictionPolicy"] = "AlwaysAllow"
	}
	b, _ := json.Marshal(map[string]any{"spec": spec})
	return fmt.Sprintf("kubectl patch pdb %s -n %s --type=merge -p '%s'", d.Object.Name, d.Object.Namespace, b)
}

func (n *NewPDB) createCommand() string {
	cmd := fmt.Sprintf("kubectl create poddisruptionbudget %s -n %s --max-unavailable=1 --selector=%s",
		n.Name, n.For.Namespace, labels.Set(n.Labels).String())
	if n.AlwaysAllow {
		cmd += fmt.Sprintf(` && kubectl patch pdb %s -n %s --type=merge -p '{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`, n.Name, n.For.Namespace)
	}
	return cmd
}

package fix

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// newPDBLines renders n as a YAML document (separator first) in the file's
// format, selecting the pods of workload (its spec.selector, copied).
func newPDBLines(n *NewPDB, workload *yaml.RNode, f format) ([]string, error) {
	sel, err := workload.Pipe(yaml.Lookup("spec", "selector"))
	if err != nil || sel.IsNil() {
		return nil, fmt.Errorf("%s has no spec.selector to copy into a PodDisruptionBudget", n.For.Kind)
	}
	if hasAnchors(sel.YNode()) {
		return nil, errAnchors
	}
	sel = sel.Copy()
	clearComments(sel.YNode())
	pdb := yaml.MustParse("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: x\nspec:\n  maxUnavailable: 1\n")
	if err := pdb.SetName(n.Name); err != nil {
		return nil, err
	}
	if ns := workload.GetNamespace(); ns != "" {
		if err := pdb.SetNamespace(ns); err != nil {
			return nil, err
		}
	}
	spec := pdb.Field("spec").Value
	if n.AlwaysAllow {
		if err := spec.PipeE(yaml.SetField("unhealthyPodEvictionPolicy", yaml.NewScalarRNode("AlwaysAllow"))); err != nil {
			return nil, err
		}
	}
	if err := spec.PipeE(yaml.SetField("selector", sel)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoderWithOptions(&buf, &yaml.EncoderOptions{SeqIndent: f.seq})
	enc.SetIndent(f.step)
	if err := enc.Encode(pdb.YNode()); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return append([]string{"---"}, strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")...), nil
}

func clearComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		clearComments(c)
	}
}

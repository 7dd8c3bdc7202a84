package fix

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// newPDBLines renders n as a YAML document (separator first) in the file's
// format, selecting the pods of workload with its spec.selector: the
// selector's own lines, moved to the budget's indentation, when the
// workload writes its spec in block style, else the selector re-encoded.
// The document is parsed back and its selector compared with the
// workload's before it is used.
func newPDBLines(n *NewPDB, workload *yaml.RNode, doc *text, f format) ([]string, error) {
	spec := walk(workload.YNode(), []string{"spec"})
	if spec == nil || keyIndex(spec, "selector") < 0 {
		return nil, fmt.Errorf("%s has no spec.selector to copy into a PodDisruptionBudget", n.For.Kind)
	}
	sel := spec.Content[keyIndex(spec, "selector")+1]
	if hasAnchors(sel) {
		return nil, errAnchors
	}
	lines, ok := selectorLines(spec, doc, f.step)
	if !ok {
		return encodePDB(n, workload, f)
	}
	pad := strings.Repeat(" ", f.step)
	out := []string{"---", "apiVersion: policy/v1", "kind: PodDisruptionBudget", "metadata:", pad + "name: " + plainOrQuoted(n.Name)}
	if ns := workload.GetNamespace(); ns != "" {
		out = append(out, pad+"namespace: "+plainOrQuoted(ns))
	}
	out = append(out, "spec:", pad+"maxUnavailable: 1")
	if n.AlwaysAllow {
		out = append(out, pad+"unhealthyPodEvictionPolicy: AlwaysAllow")
	}
	out = append(out, lines...)
	back, err := yaml.Parse(strings.Join(out[1:], "\n"))
	if err != nil || !sameNode(walk(back.YNode(), []string{"spec", "selector"}), sel) || back.GetName() != n.Name {
		return encodePDB(n, workload, f)
	}
	return out, nil
}

// selectorLines returns the lines of the selector entry of block mapping
// spec, moved to indentation step; ok is false for layouts it does not
// copy (flow style, an entry sharing its line with a sequence dash).
func selectorLines(spec *yaml.Node, doc *text, step int) ([]string, bool) {
	if spec.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	key := spec.Content[keyIndex(spec, "selector")]
	line, col := key.Line-1, key.Column-1
	if line < 0 || line >= len(doc.lines) || len(doc.line(line)) < col || strings.TrimSpace(doc.line(line)[:col]) != "" {
		return nil, false
	}
	pad := strings.Repeat(" ", step)
	var out []string
	for i := line; i < doc.entryEnd(line, col, len(doc.lines)); i++ {
		l := doc.line(i)
		ind, rest := indentOf(l)
		switch {
		case rest == "":
			out = append(out, "")
		case ind >= col:
			out = append(out, pad+l[col:])
		default:
			out = append(out, pad+rest)
		}
	}
	return out, true
}

// plainOrQuoted writes a string scalar plain, or double-quoted where YAML
// 1.1 would read it as another type (a name like "123" or "yes").
func plainOrQuoted(s string) string {
	if yaml.IsValueNonString(s) || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") {
		return strconv.Quote(s)
	}
	return s
}

// encodePDB builds the budget with kyaml and encodes it.
func encodePDB(n *NewPDB, workload *yaml.RNode, f format) ([]string, error) {
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

package fix

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// errAnchors refuses edits where YAML anchors, aliases or merge keys are on
// the way: editing one place would change another, or the text edited is
// not where the value comes from.
var errAnchors = errors.New("YAML anchors, aliases or merge keys (&x, *x, <<) where the fix edits: edit it by hand")

// format is how a document writes YAML, so that inserted lines match it.
type format struct {
	step int
	seq  yaml.SequenceIndentStyle
}

// docEditor computes the line splices that turn the original text of one
// document into the edited tree, change by change.
type docEditor struct {
	t     *text
	doc   docRange
	base  int // line index of the document's first line
	fmt   format
	edits []splice
	// done marks entries already spliced ("line:col"), so that changes
	// under one replaced entry produce one splice.
	done map[string]bool
}

// change adds the splice for ch, made in edited (the kyaml-edited copy of
// orig, both the object's node).
func (e *docEditor) change(orig, edited *yaml.Node, ch fieldChange) error {
	full := append(append([]string(nil), ch.path...), ch.key)
	parent := orig
	// holder and held are the block mapping entry whose value is parent,
	// when there is one: a change inside a flow collection rewrites that
	// entry whole, the collection re-encoded in flow style.
	var holder *yaml.Node
	held := -1
	for i, step := range full {
		if parent.Kind == yaml.AliasNode || parent.Anchor != "" {
			return errAnchors
		}
		if parent.Style&yaml.FlowStyle != 0 {
			if holder == nil {
				return fmt.Errorf("%s is written in flow style (JSON): edit it by hand", strings.Join(append([]string{"the object"}, full[:i]...), "."))
			}
			return e.replace(holder, held, walk(edited, full[:i]))
		}
		if name, ok := listIndex(step); ok {
			next := element(parent, name)
			if next == nil {
				return fmt.Errorf("no container %q in the manifest", name)
			}
			if next.Style&yaml.FlowStyle != 0 { // - {name: app, ...}
				return e.replaceItem(next, walk(edited, full[:i+1]))
			}
			parent, holder = next, nil
			continue
		}
		if parent.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", strings.Join(full[:i], "."))
		}
		k := keyIndex(parent, step)
		last := i == len(full)-1
		switch {
		case hasMergeKey(parent):
			return errAnchors
		case k < 0 && last && ch.deletes():
			return nil // deleting what is not there
		case k < 0:
			return e.insert(parent, step, walk(edited, full[:i+1]))
		case last && ch.deletes():
			return e.remove(parent, k)
		case last:
			return e.replace(parent, k, walk(edited, full))
		}
		value := parent.Content[k+1]
		if value.Kind == yaml.ScalarNode { // null or empty: replace it whole
			return e.replace(parent, k, walk(edited, full[:i+1]))
		}
		holder, held = parent, k
		parent = value
	}
	return nil
}

// listIndex parses a "[name=x]" path step.
func listIndex(step string) (string, bool) {
	if !yaml.IsListIndex(step) {
		return "", false
	}
	_, v, err := yaml.SplitIndexNameValue(step)
	return v, err == nil
}

// element returns the mapping in sequence seq whose name field is name.
func element(seq *yaml.Node, name string) *yaml.Node {
	if seq.Kind != yaml.SequenceNode {
		return nil
	}
	for _, el := range seq.Content {
		if k := keyIndex(el, "name"); k >= 0 && el.Content[k+1].Value == name {
			return el
		}
	}
	return nil
}

func keyIndex(m *yaml.Node, key string) int {
	if m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func hasMergeKey(m *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag == yaml.MergeTag || m.Content[i].Value == "<<" {
			return true
		}
	}
	return false
}

// walk follows path (field names and "[name=x]" steps) from n; nil when
// a step is missing.
func walk(n *yaml.Node, path []string) *yaml.Node {
	for _, step := range path {
		if n == nil {
			return nil
		}
		if name, ok := listIndex(step); ok {
			n = element(n, name)
			continue
		}
		k := keyIndex(n, step)
		if k < 0 {
			return nil
		}
		n = n.Content[k+1]
	}
	return n
}

// hasAnchors reports whether n or a node under it has an anchor or is an
// alias.
func hasAnchors(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	return n.Anchor != "" || n.Kind == yaml.AliasNode || slices.ContainsFunc(n.Content, hasAnchors)
}

// abs returns the 0-based line index in the file of node n's line.
func (e *docEditor) abs(n *yaml.Node) int { return e.base + n.Line - 1 }

// once reports whether the entry at node n (and, for inserts after n, the
// new key) gets its first splice; later changes under it are already in
// the edited value that splice carries.
func (e *docEditor) once(n *yaml.Node, key ...string) bool {
	id := fmt.Sprintf("%d:%d:%v", n.Line, n.Column, key)
	if e.done[id] {
		return false
	}
	e.done[id] = true
	return true
}

// insert adds key: value as the last entry of block mapping m.
func (e *docEditor) insert(m *yaml.Node, key string, value *yaml.Node) error {
	if value == nil {
		return fmt.Errorf("internal: no edited value for %s", key)
	}
	if m.Style&yaml.FlowStyle != 0 || len(m.Content) == 0 {
		return fmt.Errorf("the mapping holding %s is written in flow style: edit it by hand", key)
	}
	lastKey := m.Content[len(m.Content)-2]
	if !e.once(lastKey, key) {
		return nil
	}
	col := lastKey.Column - 1
	at := e.t.entryEnd(e.abs(lastKey), col, e.doc.end)
	lines, err := e.render(&yaml.Node{Kind: yaml.ScalarNode, Value: key}, value, strings.Repeat(" ", col), col)
	if err != nil {
		return err
	}
	e.edits = append(e.edits, splice{start: at, end: at, col: col, lines: lines})
	return nil
}

// remove deletes entry k of mapping m.
func (e *docEditor) remove(m *yaml.Node, k int) error {
	key := m.Content[k]
	if hasAnchors(m.Content[k+1]) {
		return errAnchors
	}
	line, col := e.abs(key), key.Column-1
	if prefix := e.t.line(line)[:col]; strings.TrimSpace(prefix) != "" {
		return fmt.Errorf("%s shares its line with a sequence item: edit it by hand", key.Value)
	}
	if !e.once(key) {
		return nil
	}
	e.edits = append(e.edits, splice{start: line, end: e.t.entryEnd(line, col, e.doc.end), col: col})
	return nil
}

// replace writes entry k of mapping m with value; a one-line plain scalar
// is replaced in place, so the rest of its line (a comment) stays.
func (e *docEditor) replace(m *yaml.Node, k int, value *yaml.Node) error {
	key, old := m.Content[k], m.Content[k+1]
	if value == nil {
		return fmt.Errorf("internal: no edited value for %s", key.Value)
	}
	if hasAnchors(old) {
		return errAnchors
	}
	if !e.once(key) {
		return nil
	}
	line, col := e.abs(key), key.Column-1
	if s, ok := e.inlineScalar(old, value); ok {
		e.edits = append(e.edits, splice{start: line, end: line + 1, col: col, lines: []string{s}})
		return nil
	}
	k2 := &yaml.Node{Kind: yaml.ScalarNode, Value: key.Value, Style: key.Style, LineComment: key.LineComment}
	lines, err := e.render(k2, value, e.t.line(line)[:col], col)
	if err != nil {
		return err
	}
	e.edits = append(e.edits, splice{start: line, end: e.t.entryEnd(line, col, e.doc.end), col: col, lines: lines})
	return nil
}

// inlineScalar returns old's line with its plain scalar token replaced by
// value, when both are one-line scalars on the key's line.
func (e *docEditor) inlineScalar(old, value *yaml.Node) (string, bool) {
	if old.Kind != yaml.ScalarNode || value.Kind != yaml.ScalarNode || old.Style != 0 || old.Line == 0 {
		return "", false
	}
	l := e.t.line(e.abs(old))
	c := old.Column - 1
	if c >= len(l) || !strings.HasPrefix(l[c:], old.Value) {
		return "", false
	}
	rest := l[c+len(old.Value):]
	if rest != "" && !strings.HasPrefix(strings.TrimLeft(rest, " "), "#") {
		return "", false
	}
	var buf bytes.Buffer
	if err := yaml.NewEncoder(&buf).Encode(value); err != nil {
		return "", false
	}
	tok := strings.TrimSuffix(buf.String(), "\n")
	if strings.Contains(tok, "\n") {
		return "", false
	}
	return l[:c] + tok + rest, true
}

// render encodes key: value in the document's format; the first line is
// prefixed with first, the others indented by col.
func (e *docEditor) render(key, value *yaml.Node, first string, col int) ([]string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoderWithOptions(&buf, &yaml.EncoderOptions{SeqIndent: e.fmt.seq})
	enc.SetIndent(e.fmt.step)
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, value}}
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return indentLines(buf.String(), first, col), nil
}

// indentLines splits encoded YAML into lines: the first prefixed with
// first, the other non-empty ones indented by col.
func indentLines(encoded, first string, col int) []string {
	out := strings.Split(strings.TrimSuffix(encoded, "\n"), "\n")
	pad := strings.Repeat(" ", col)
	for i, l := range out {
		switch {
		case i == 0:
			out[i] = first + l
		case l != "":
			out[i] = pad + l
		}
	}
	return out
}

// replaceItem rewrites a flow-style item of a block sequence (a line
// "- {...}", and the lines it continues on) with value, in flow style.
func (e *docEditor) replaceItem(old, value *yaml.Node) error {
	if value == nil {
		return fmt.Errorf("internal: no edited value for a list item")
	}
	if hasAnchors(old) {
		return errAnchors
	}
	line, col := e.abs(old), old.Column-1
	l := e.t.line(line)
	dash := strings.TrimRight(l[:col], " ")
	if !strings.HasSuffix(dash, "-") || strings.TrimSpace(dash) != "-" {
		return fmt.Errorf("a list item in flow style shares its line: edit it by hand")
	}
	if !e.once(old) {
		return nil
	}
	var buf bytes.Buffer
	if err := yaml.NewEncoder(&buf).Encode(value); err != nil {
		return err
	}
	lines := indentLines(buf.String(), l[:col], col)
	e.edits = append(e.edits, splice{start: line, end: e.t.itemEnd(line, len(dash)-1, e.doc.end), col: col, lines: lines})
	return nil
}

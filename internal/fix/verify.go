package fix

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// verify applies the splices to a copy of the document and checks that
// the text now parses to the same data as the edited tree.
func verify(doc *text, ss []splice, edited *yaml.RNode) error {
	c := doc.clone()
	c.apply(append([]splice(nil), ss...))
	got, err := yaml.Parse(c.String())
	if err == nil && sameNode(got.YNode(), edited.YNode()) {
		return nil
	}
	return fmt.Errorf("the edited lines would not read back as planned (unusual layout): edit it by hand")
}

// sameNode compares two trees as data: kinds, resolved tags and values,
// mappings as sets of keys; styles, comments and positions do not count.
func sameNode(a, b *yaml.Node) bool {
	a, b = resolve(a), resolve(b)
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.Value == b.Value && a.ShortTag() == b.ShortTag()
	case yaml.MappingNode:
		for i := 0; i+1 < len(a.Content); i += 2 {
			k := keyIndex(b, a.Content[i].Value)
			if k < 0 || !sameNode(a.Content[i+1], b.Content[k+1]) {
				return false
			}
		}
		return true
	}
	return slices.EqualFunc(a.Content, b.Content, sameNode)
}

// resolve looks through document nodes and aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

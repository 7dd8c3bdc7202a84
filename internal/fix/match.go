package fix

import (
	"cmp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// matchTargets returns the targets that are objects of the document (objs
// are its objects), with the index of each one's object.
func matchTargets(objs []*yaml.RNode, targets []*target, namespace string) ([]*target, map[*target]int) {
	var found []*target
	at := map[*target]int{}
	for i, o := range objs {
		ref := inspect.ObjectRef{Kind: o.GetKind(), Namespace: cmp.Or(o.GetNamespace(), namespace, "default"), Name: o.GetName()}
		for _, tg := range targets {
			if tg.ref == ref {
				found = append(found, tg)
				at[tg] = i
			}
		}
	}
	return found, at
}

// mentions reports whether src has key: (or "key":, as JSON writes it)
// followed by a value in set, anywhere (block or flow style). Edit uses
// it to parse only the documents that may hold an object of the plan; a
// false positive costs only a parse.
func mentions(src, key string, set map[string]bool) bool {
	for i := 0; ; {
		j := strings.Index(src[i:], key)
		if j < 0 {
			return false
		}
		i += j + len(key)
		rest := strings.TrimLeft(strings.TrimLeft(src[i:], `"'`), " ")
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		tok := strings.TrimLeft(rest[1:], " ")
		if end := strings.IndexAny(tok, " ,}\r\n#"); end >= 0 {
			tok = tok[:end]
		}
		if set[strings.Trim(tok, `"'`)] {
			return true
		}
	}
}

// objects returns the objects of a document: the items of a List, or the
// document itself.
func objects(root *yaml.RNode) []*yaml.RNode {
	if strings.HasSuffix(root.GetKind(), "List") {
		if items, err := root.Pipe(yaml.Lookup("items")); err == nil && items != nil {
			if els, err := items.Elements(); err == nil {
				return els
			}
		}
	}
	return []*yaml.RNode{root}
}

package load

import (
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// objectFields are the unknown fields of one object of a document and
// the file's line of each of its fields (inspect.Source.Fields).
type objectFields struct {
	kind, name string
	unknown    []inspect.UnknownField
	lines      map[string]int
}

// fields walks the objects of a parsed document (a List's items one by
// one) against their API types: it returns the unknown fields of each, and
// a *fieldTypeError for the first value of the wrong type.
func (d document) fields(root *yaml.Node) ([]objectFields, error) {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil
	}
	kind := child(root, "kind")
	if kind != nil && strings.HasSuffix(kind.Value, "List") {
		var out []objectFields
		if items := child(root, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for _, it := range items.Content {
				of, err := d.objectFields(it)
				if err != nil {
					return nil, err
				}
				out = append(out, of...)
			}
		}
		return out, nil
	}
	return d.objectFields(root)
}

// objectFields walks one object: a kind the audit reads whole, against
// its type; a custom resource or a removed apiVersion through its pod
// template (spec.template), the part the audit reads; other kinds not at
// all (a Secret's values are never looked at).
func (d document) objectFields(n *yaml.Node) ([]objectFields, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil
	}
	av, k := child(n, "apiVersion"), child(n, "kind")
	if av == nil || k == nil {
		return nil, nil
	}
	gvk := schema.FromAPIVersionAndKind(av.Value, k.Value)
	fw := &fieldWalk{file: d.file, firstLine: d.firstLine}
	t, whole := apiType(gvk)
	switch {
	case whole:
		fw.walk(n, t, "")
	case t != nil:
		if tpl := child(child(n, "spec"), "template"); tpl != nil && child(child(tpl, "spec"), "containers") != nil {
			fw.walk(tpl, t, "spec.template")
		}
	}
	if fw.err != nil {
		return nil, fw.err
	}
	name := ""
	if nm := child(child(n, "metadata"), "name"); nm != nil {
		name = nm.Value
	}
	of := objectFields{kind: gvk.Kind, name: name, unknown: fw.unknown}
	if t != nil { // a kind the audit reads: its findings point at fields
		of.lines = map[string]int{}
		fw.fieldLines(n, "", of.lines)
	}
	return []objectFields{of}, nil
}

var podTemplateType = reflect.TypeFor[corev1.PodTemplateSpec]()

// apiType returns the Go type an object of gvk is checked against: whole
// for the kinds the audit reads in a version the client library has, the
// pod template's for other objects (nil for a built-in kind the audit does
// not read, never decoded).
func apiType(gvk schema.GroupVersionKind) (reflect.Type, bool) {
	if gvk == (schema.GroupVersionKind{Group: "policy", Version: "v1beta1", Kind: "PodDisruptionBudget"}) {
		return reflect.TypeFor[policyv1.PodDisruptionBudget](), true
	}
	if !scheme.Scheme.IsGroupRegistered(gvk.Group) {
		return podTemplateType, false
	}
	if !audited[gvk.GroupKind()] {
		return nil, false
	}
	if _, removed := inspect.RemovedAPIs[gvk.GroupVersion().String()+" "+gvk.Kind]; !removed && scheme.Scheme.Recognizes(gvk) {
		if obj, err := scheme.Scheme.New(gvk); err == nil {
			return reflect.TypeOf(obj).Elem(), true
		}
	}
	return podTemplateType, false
}

// child returns the value of key in mapping n, nil when absent.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			for v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// fieldIndex holds the unknown fields and field lines of a file's objects
// until the resource builder hands the objects over, by kind and name in
// file order.
type fieldIndex map[string][]objectFields

func (x fieldIndex) add(of []objectFields) {
	for _, o := range of {
		k := o.kind + "/" + o.name
		x[k] = append(x[k], o)
	}
}

// take returns the fields of the next object of kind and name.
func (x fieldIndex) take(kind, name string) objectFields {
	k := kind + "/" + name
	q := x[k]
	if len(q) == 0 {
		return objectFields{}
	}
	x[k] = q[1:]
	return q[0]
}

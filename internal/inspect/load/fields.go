package load

import (
	"cmp"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-graceful/kubectl-graceful/internal/editdistance"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// fieldTypeError is a field whose value is not of its API type
// (replicas: "two"): the API server refuses the object, so the file is
// not read. It names the file, the field's line and column and its path.
type fieldTypeError struct {
	file         string
	line, column int
	path, want   string
	got          string
}

func (e *fieldTypeError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s where the API type has %s", e.file, e.line, e.column, e.path, e.got, e.want)
}

// fieldWalk compares a YAML document with the Go type of its kind in
// k8s.io/api, field by field, as the API server's strict decoding does:
// unknown fields are collected, the first value of the wrong type is an
// error. Lines are the file's.
type fieldWalk struct {
	file      string
	firstLine int
	unknown   []inspect.UnknownField
	err       *fieldTypeError
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walk checks n against t at path.
func (fw *fieldWalk) walk(n *yaml.Node, t reflect.Type, path string) {
	if fw.err != nil {
		return
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 1 {
			fw.walk(n.Content[0], t, path)
		}
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return // IntOrString, Quantity, Time, RawExtension: their own rules
	}
	switch t.Kind() {
	case reflect.Struct:
		if fw.expect(n, yaml.MappingNode, path, "an object") {
			fw.walkStruct(n, t, path)
		}
	case reflect.Map:
		if fw.expect(n, yaml.MappingNode, path, "a map") {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Tag == "!!merge" {
					fw.walk(n.Content[i+1], t, path)
					continue
				}
				fw.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			fw.scalar(n, path, "a base64 string", "!!str")
			return
		}
		if fw.expect(n, yaml.SequenceNode, path, "a list") {
			for i, c := range n.Content {
				fw.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case reflect.String:
		// An unquoted date is a string to the YAML 1.1 reader kubectl uses.
		fw.scalar(n, path, "a string", "!!str", "!!timestamp")
	case reflect.Bool:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && yaml11Bool[n.Value] {
			return // yes, on, off: booleans to the YAML 1.1 reader kubectl uses
		}
		fw.scalar(n, path, "a boolean", "!!bool")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		fw.scalar(n, path, "an integer ("+t.Kind().String()+")", "!!int")
	case reflect.Float32, reflect.Float64:
		fw.scalar(n, path, "a number", "!!int", "!!float")
	}
}

// walkStruct checks a mapping's keys against the struct's JSON fields.
func (fw *fieldWalk) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	fields := jsonFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" && k.Tag == "!!merge" {
			fw.walk(v, t, path)
			continue
		}
		ft, ok := fields[k.Value]
		if !ok {
			fw.unknown = append(fw.unknown, inspect.UnknownField{Path: join(path, k.Value),
				Closest: closest(k.Value, fields), Line: fw.line(k)})
			continue
		}
		fw.walk(v, ft, join(path, k.Value))
	}
}

// expect reports whether n is of kind; otherwise it records the error.
func (fw *fieldWalk) expect(n *yaml.Node, kind yaml.Kind, path, want string) bool {
	if n.Kind == kind {
		return true
	}
	fw.fail(n, path, want)
	return false
}

// scalar records an error unless n is a scalar with one of tags.
func (fw *fieldWalk) scalar(n *yaml.Node, path, want string, tags ...string) {
	if n.Kind != yaml.ScalarNode || !slices.Contains(tags, n.Tag) {
		fw.fail(n, path, want)
	}
}

func (fw *fieldWalk) fail(n *yaml.Node, path, want string) {
	fw.err = &fieldTypeError{file: fw.file, line: fw.line(n), column: n.Column, path: path, want: want, got: describe(n)}
}

func (fw *fieldWalk) line(n *yaml.Node) int { return fw.firstLine + n.Line - 1 }

// fieldLines records in into the file's line of every field under n, by
// path: a mapping's key at the key's line, a list item by its name at the
// name's line (by its index at the item's line when it has none).
func (fw *fieldWalk) fieldLines(n *yaml.Node, path string, into map[string]int) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := join(path, k.Value)
			if k.Tag == "!!merge" {
				p = path
			} else {
				into[p] = fw.line(k)
			}
			fw.fieldLines(n.Content[i+1], p, into)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p, at := fmt.Sprintf("%s[%d]", path, i), c
			if nm := child(c, "name"); nm != nil && nm.Kind == yaml.ScalarNode {
				p, at = path+"["+nm.Value+"]", nm
			}
			into[p] = fw.line(at)
			fw.fieldLines(c, p, into)
		}
	}
}

// describe names what a node holds, quoting a short scalar.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	}
	what := cmp.Or(map[string]string{"!!str": "a string", "!!int": "an integer", "!!float": "a number", "!!bool": "a boolean"}[n.Tag], "a value")
	if len(n.Value) <= 40 {
		return what + " " + strconv.Quote(n.Value)
	}
	return what
}

// yaml11Bool lists the YAML 1.1 booleans that YAML 1.2 reads as strings.
var yaml11Bool = map[string]bool{"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// jsonFields maps the JSON names of t's fields, embedded inline structs
// (TypeMeta, ObjectMeta's inline parts) included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	out := structFields(t)
	fieldCache.Store(t, out)
	return out
}

// fieldCache holds jsonFields per type: the API types are walked for
// every document.
var fieldCache sync.Map

func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if (f.Anonymous && name == "") || strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				maps.Copy(out, jsonFields(ft))
				continue
			}
		}
		name = cmp.Or(name, f.Name)
		out[name] = f.Type
	}
	return out
}

// closest returns the known field nearest to name (edit distance, case
// folded), "" when none is within a third of the name's length.
func closest(name string, fields map[string]reflect.Type) string {
	best, bestD := "", len(name)/3+1
	lower := strings.ToLower(name)
	for f := range fields {
		fl := strings.ToLower(f)
		d := editdistance.Levenshtein(lower, fl)
		if strings.HasPrefix(lower, fl) || strings.HasPrefix(fl, lower) {
			d = min(d, 1)
		}
		if d < bestD || (d == bestD && best != "" && f < best) {
			best, bestD = f, d
		}
	}
	return best
}

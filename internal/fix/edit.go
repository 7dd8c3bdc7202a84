package fix

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// FileEdit is what Edit made of one manifest file.
type FileEdit struct {
	File          string
	Before, After []byte
	// Done lists the objects changed, with what changed.
	Done []Outcome
	// Refused lists the objects of the plan this file could not be
	// edited for, with why.
	Refused []Outcome

	// splices are the replaced lines, in Before's line numbers (Diff
	// reads them).
	splices []splice
}

// Outcome is what happened to one object of the plan: a description of
// the change, or the reason it was not made.
type Outcome struct {
	Object inspect.ObjectRef
	Text   string
	Fixes  []inspect.Finding
}

// Changed reports whether the file's bytes changed.
func (e *FileEdit) Changed() bool { return !bytes.Equal(e.Before, e.After) }

// ErrNotEditable is wrapped by Edit's errors for files that cannot be
// edited safely at all (templates).
var ErrNotEditable = errors.New("not safely editable")

// target is one part of the plan, for one object of the file.
type target struct {
	ref     inspect.ObjectRef
	changes []fieldChange
	add     *NewPDB
	text    string
	fixes   []inspect.Finding
}

// docResult is what editDocument made of one document.
type docResult struct {
	splices []splice
	found   []*target
	err     error
}

// Edit applies the parts of plan p whose source is file to data, the
// file's content. Objects without a namespace are in namespace (the one
// the audit gave them). Each document is edited with kyaml on a copy of
// its tree; the lines of the changed nodes are spliced into the original
// text and the result is parsed again and compared with the edited tree,
// so a document is either edited as planned or left byte for byte as it
// was and listed in Refused. New PodDisruptionBudgets are inserted as
// documents after their workload's. It returns an error wrapping
// ErrNotEditable for a template ("{{").
func Edit(file string, data []byte, p *Plan, namespace string) (*FileEdit, error) {
	if bytes.Contains(data, []byte("{{")) {
		return nil, fmt.Errorf("%w: a template ({{ ... }}): fix the template or its values, not its output", ErrNotEditable)
	}
	targets := p.targets(file)
	fe := &FileEdit{File: file, Before: data, After: data}
	t := newText(string(data))
	names, kinds := map[string]bool{}, map[string]bool{}
	for _, tg := range targets {
		names[tg.ref.Name], kinds[tg.ref.Kind] = true, true
	}
	docs := t.documents()
	results := make([]docResult, len(docs))
	// Documents are independent: edit them on every CPU.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, d := range docs {
		g.Go(func() error {
			r := &results[i]
			r.splices, r.found, r.err = editDocument(t, d, targets, names, kinds, namespace)
			return nil
		})
	}
	_ = g.Wait()
	claimed := map[*target]bool{}
	var all []splice
	for _, r := range results {
		err := r.err
		for _, tg := range r.found {
			if claimed[tg] && err == nil {
				err = errors.New("the object appears more than once in the file: only its first document was fixed")
			}
		}
		for _, tg := range r.found {
			claimed[tg] = true
			if err != nil {
				fe.Refused = append(fe.Refused, Outcome{Object: tg.ref, Text: err.Error(), Fixes: tg.fixes})
				continue
			}
			fe.Done = append(fe.Done, Outcome{Object: tg.ref, Text: tg.text, Fixes: tg.fixes})
		}
		if err == nil {
			all = append(all, r.splices...)
		}
	}
	for _, tg := range targets {
		if !claimed[tg] {
			fe.Refused = append(fe.Refused, Outcome{Object: tg.ref, Text: "not found in the file", Fixes: tg.fixes})
		}
	}
	if len(all) > 0 {
		fe.splices = append([]splice(nil), all...)
		t.apply(all)
		fe.After = []byte(t.String())
	}
	return fe, nil
}

// targets lists the parts of the plan for file.
func (p *Plan) targets(file string) []*target {
	in := func(s *inspect.Source) bool { return s != nil && s.File == file }
	var out []*target
	for _, w := range p.Workloads {
		if in(w.Source) {
			out = append(out, &target{ref: w.Object, changes: w.changes(), text: w.Describe(), fixes: w.Fixes})
		}
	}
	for _, d := range p.PDBs {
		if in(d.Source) {
			out = append(out, &target{ref: d.Object, changes: d.changes(), text: d.Describe(), fixes: d.Fixes})
		}
	}
	for _, n := range p.NewPDBs {
		if in(n.Source) {
			out = append(out, &target{ref: n.For, add: n, text: n.Describe(), fixes: n.Fixes})
		}
	}
	return out
}

// editDocument returns the splices for document d and the targets found
// in it, or an error saying why the document is left as it was.
func editDocument(t *text, d docRange, targets []*target, names, kinds map[string]bool, namespace string) ([]splice, []*target, error) {
	src := t.join(d)
	if !mentions(src, "name", names) || !(mentions(src, "kind", kinds) || strings.Contains(src, "items:")) {
		return nil, nil, nil
	}
	root, err := yaml.Parse(src)
	if err != nil || root.IsNil() {
		return nil, nil, nil
	}
	objs := objects(root)
	found, at := matchTargets(objs, targets, namespace)
	if len(found) == 0 {
		return nil, nil, nil
	}
	// Every change is made in the tree first, so that each splice carries
	// the final value of its node, however many changes fall under it.
	edited := root.Copy()
	edObjs := objects(edited)
	for _, tg := range found {
		for _, ch := range tg.changes {
			if err := applyChange(edObjs[at[tg]], ch); err != nil {
				return nil, found, err
			}
		}
	}
	doc := &text{lines: append([]string(nil), t.lines[d.start:d.end]...), cr: t.cr}
	de := &docEditor{t: doc, doc: docRange{0, len(doc.lines)}, done: map[string]bool{},
		fmt: format{step: t.indentStep(d), seq: yaml.SequenceIndentStyle(yaml.DeriveSeqIndentStyle(src))}}
	var adds []splice
	for _, tg := range found {
		i := at[tg]
		for _, ch := range tg.changes {
			if err := de.change(objs[i].YNode(), edObjs[i].YNode(), ch); err != nil {
				return nil, found, err
			}
		}
		if tg.add != nil {
			if len(objs) > 1 || objs[0] != root {
				return nil, found, fmt.Errorf("the workload is an item of a List: add its PodDisruptionBudget by hand")
			}
			lines, err := newPDBLines(tg.add, objs[i], doc, de.fmt)
			if err != nil {
				return nil, found, err
			}
			adds = append(adds, splice{start: d.end, end: d.end, col: -1, lines: lines})
		}
	}
	if err := verify(doc, de.edits, edited); err != nil {
		return nil, found, err
	}
	out := adds
	for _, s := range de.edits {
		s.start += d.start
		s.end += d.start
		out = append(out, s)
	}
	return out, found, nil
}

// applyChange makes ch in obj through kyaml's filters.
func applyChange(obj *yaml.RNode, ch fieldChange) error {
	if ch.copyOf != nil {
		return copyField(obj, ch)
	}
	if ch.value == nil {
		return obj.PipeE(yaml.Lookup(ch.path...), yaml.Clear(ch.key))
	}
	// OverrideStyle: the new value keeps its own style (an int replacing
	// a quoted percentage must not be written quoted).
	return obj.PipeE(yaml.LookupCreate(yaml.MappingNode, ch.path...),
		yaml.FieldSetter{Name: ch.key, Value: ch.value(), OverrideStyle: true})
}

// copyField sets ch.key at ch.path to a copy of the value at ch.copyOf,
// refusing when there is nothing to copy or the key is set already.
func copyField(obj *yaml.RNode, ch fieldChange) error {
	v, err := obj.Pipe(yaml.Lookup(ch.copyOf...))
	if err != nil || v == nil {
		return fmt.Errorf("%s is not in the object", strings.Join(ch.copyOf, "."))
	}
	if set, _ := obj.Pipe(yaml.Lookup(append(ch.path, ch.key)...)); set != nil {
		return errors.New(reasonMoveSet)
	}
	return obj.PipeE(yaml.LookupCreate(yaml.MappingNode, ch.path...),
		yaml.FieldSetter{Name: ch.key, Value: v.Copy(), OverrideStyle: true})
}

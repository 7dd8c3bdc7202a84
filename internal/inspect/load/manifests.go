// Package load fills an inspect.Inventory from manifests (files,
// directories, stdin, kustomize) without any cluster, or from a live cluster
// through client-go.
package load

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// ManifestOptions says which manifests to read.
type ManifestOptions struct {
	// Filenames are files, directories or "-" for Stdin (kubectl's -f).
	Filenames []string
	// Recursive walks directories recursively (-R).
	Recursive bool
	// Kustomize is a kustomization directory (-k).
	Kustomize string
	// Namespace is given to objects without one (kubectl apply's rule).
	Namespace string
	// Stdin is read when Filenames contains "-".
	Stdin io.Reader
	// Skipped, when set, is told (one line, no object's values) about each
	// document skipped because it does not parse and is of a kind the audit
	// does not read.
	Skipped func(line string)
	// MaxInputBytes bounds what is read of each input (bytes); 0 means
	// DefaultMaxInputBytes.
	MaxInputBytes int64
	// Read, when set, is given each local input as read whole (name as
	// the objects' Source.File has it), before it is parsed: --fix keeps a
	// digest, to refuse a file that changed before it is written.
	Read func(name string, data []byte)
}

// Manifests reads the manifests with cli-runtime's resource builder in
// local mode (it never contacts a server nor needs a kubeconfig) and files
// every object into inv. Each -f document is first parsed strictly: a
// duplicate key is an error naming the file and line; a document that does
// not parse is an error when it may be a kind the audit reads, and is
// skipped (told to opts.Skipped, counted in inv.NotAudited) otherwise,
// without quoting it (a Secret's values are never printed). It also returns
// an error naming the file for input that cannot be read, an object without
// kind, a built-in API group with a kind it does not have, fields of the
// wrong type in a kind the audit reads, and for input without any object
// (as kubectl apply refuses it). Objects of other API groups are read as
// load balancer settings (GKE BackendConfigs, AWS TargetGroupBindings),
// audited through their pod template, or counted as not audited.
func Manifests(opts ManifestOptions, inv *inspect.Inventory) error {
	files, err := expandFilenames(opts.Filenames, opts.Recursive)
	if err != nil {
		return err
	}
	if len(files) == 0 && opts.Kustomize == "" {
		return fmt.Errorf("no objects passed to audit (no .json, .yaml or .yml file in %s)", inputNames(opts))
	}
	ns := cmp.Or(opts.Namespace, "default")
	var remote []string
	var unread []FileError
	for _, f := range files {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			remote = append(remote, f)
			continue
		}
		if err := oneFile(f, opts, ns, inv); err != nil {
			unread = append(unread, FileError{File: displayName(f), Err: err})
		}
	}
	if len(remote) > 0 || opts.Kustomize != "" {
		b := resource.NewLocalBuilder().Unstructured().Flatten().
			FilenameParam(false, &resource.FilenameOptions{Filenames: remote, Kustomize: opts.Kustomize})
		if err := visit(b, newLineIndex(), ns, inv); err != nil {
			return err
		}
	}
	if len(unread) > 0 {
		return &UnreadError{Files: unread}
	}
	if inv.Objects == 0 {
		return fmt.Errorf("no objects passed to audit (in %s)", inputNames(opts))
	}
	return nil
}

// oneFile reads, checks and files one local input into inv, or none of it:
// its objects go to a scratch inventory first, merged only when the whole
// file was read, so that a file with one bad document is reported as not
// read rather than half audited.
func oneFile(f string, opts ManifestOptions, ns string, inv *inspect.Inventory) error {
	name, data, err := readInput(f, opts.Stdin, opts.maxInput())
	if err != nil {
		return err
	}
	if opts.Read != nil {
		opts.Read(name, data)
	}
	scratch := &inspect.Inventory{Version: inv.Version, Live: inv.Live}
	fields := fieldIndex{}
	good, err := checkedDocuments(name, data, scratch, fields, opts.Skipped)
	if err != nil {
		return err
	}
	lines := newLineIndex()
	lines.add(name, data)
	lines.fields = fields
	b := resource.NewLocalBuilder().Unstructured().Flatten().Stream(bytes.NewReader(good), name)
	if err := visit(b, lines, ns, scratch); err != nil {
		return err
	}
	inv.Merge(scratch)
	return nil
}

// visit files every object the builder gives into inv, with its source
// line; objects without a namespace get ns (kubectl apply's rule).
func visit(b *resource.Builder, lines *lineIndex, ns string, inv *inspect.Inventory) error {
	err := b.Do().Visit(func(info *resource.Info, err error) error {
		if err != nil {
			return err
		}
		u, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("%s: unexpected object %T", info.Source, info.Object)
		}
		src := &inspect.Source{File: info.Source, Line: lines.line(info.Source, u.GetKind(), u.GetName())}
		defaulted := u.GetNamespace() == ""
		if defaulted {
			u.SetNamespace(ns)
		}
		nw, np := len(inv.Workloads), len(inv.PDBs)
		if err := addUnstructured(inv, u, src); err != nil {
			return err
		}
		of := lines.fields.take(u.GetKind(), u.GetName())
		src.Fields = of.lines
		unknown := of.unknown
		for _, w := range inv.Workloads[nw:] {
			w.NamespaceDefaulted = defaulted
			w.UnknownFields = unknown
		}
		for i := range inv.PDBs[np:] {
			inv.PDBs[np+i].NamespaceDefaulted = defaulted
			inv.PDBs[np+i].UnknownFields = unknown
		}
		return nil
	})
	if err != nil {
		return shorten(err)
	}
	return nil
}

// readInput reads file, or stdin for "-" (named STDIN), up to max bytes:
// an input larger than that (or one that never ends, /dev/zero) is an
// error, read no further.
func readInput(file string, stdin io.Reader, max int64) (string, []byte, error) {
	name, r := displayName(file), stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return file, nil, err
		}
		defer f.Close()
		r = f
	}
	max = min(max, math.MaxInt64-1) // max+1 must not overflow
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return name, nil, err
	}
	if int64(len(data)) > max {
		return name, nil, fmt.Errorf("%s is larger than %s (--max-input-size): not read", name, sizeText(max))
	}
	return name, data, nil
}

// DefaultMaxInputBytes is how much of one input (a file, stdin) the audit
// reads at most: 256 MiB.
const DefaultMaxInputBytes int64 = 256 << 20

func (o ManifestOptions) maxInput() int64 {
	if o.MaxInputBytes > 0 {
		return o.MaxInputBytes
	}
	return DefaultMaxInputBytes
}

func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func displayName(f string) string {
	if f == "-" {
		return "STDIN"
	}
	return f
}

// FileError is one input the audit could not read, and why.
type FileError struct {
	File string
	Err  error
}

// UnreadError is returned by Manifests when some inputs could not be read
// (no permission, too large, a document that does not parse, fields of
// the wrong type): every other input was filed into the inventory, whose
// findings are still to be reported. Files lists each, in input order.
type UnreadError struct{ Files []FileError }

// Error is the one file's error when there is one, else how many and each.
func (e *UnreadError) Error() string {
	if len(e.Files) == 1 {
		return e.Files[0].Message()
	}
	parts := make([]string, len(e.Files))
	for i, f := range e.Files {
		parts[i] = f.Message()
	}
	return fmt.Sprintf("%d inputs not read: %s", len(e.Files), strings.Join(parts, "; "))
}

// Message is the error as one message, naming the file when it does not
// already.
func (f FileError) Message() string {
	var pe *fs.PathError
	if errors.As(f.Err, &pe) {
		return f.File + ": " + pe.Err.Error()
	}
	m := shorten(f.Err).Error()
	if !strings.HasPrefix(m, f.File) {
		m = f.File + ": " + m
	}
	return m
}

// checkedDocuments returns the documents of data that parse strictly,
// joined again for the builder, and skips those that do not parse and are
// of a kind the audit does not read. The unknown fields of the objects
// read go to fields; a field of the wrong type is an error.
func checkedDocuments(file string, data []byte, inv *inspect.Inventory, fields fieldIndex, skipped func(string)) ([]byte, error) {
	var good bytes.Buffer
	for _, d := range splitDocuments(file, data) {
		if d.blank() {
			continue
		}
		n, err := d.check()
		if err == nil {
			of, err := d.fields(n)
			if err != nil {
				return nil, err
			}
			fields.add(of)
			good.Write(d.data)
			good.WriteString("\n---\n")
			continue
		}
		if _, dup := err.(*errDuplicateKey); dup {
			return nil, err
		}
		kind, name := d.kindAndName()
		if kind == "" || readsKind(kind) {
			return nil, err
		}
		inv.AddNotAudited(inspect.NotAuditedUnparseable, notAuditedUnparseable)
		if skipped != nil {
			skipped(fmt.Sprintf("skipped %s:%d: %s %q does not parse and is not a kind the audit reads%s",
				file, d.firstLine, kind, name, parseDetail(kind, err)))
		}
	}
	return good.Bytes(), nil
}

// parseDetail is the parser's message, except for Secrets: nothing of a
// Secret's text is ever repeated.
func parseDetail(kind string, err error) string {
	if kind == "Secret" {
		return ""
	}
	return " (" + err.Error() + ")"
}

// readsKind reports whether kind (group unknown: the document did not
// parse) may be one the audit reads, or a List of them.
func readsKind(kind string) bool {
	if strings.HasSuffix(kind, "List") {
		return true
	}
	for gk := range audited {
		if gk.Kind == kind {
			return true
		}
	}
	return false
}

func inputNames(opts ManifestOptions) string {
	if opts.Kustomize != "" {
		return "-k " + opts.Kustomize
	}
	names := make([]string, len(opts.Filenames))
	for i, f := range opts.Filenames {
		names[i] = f
		if f == "-" {
			names[i] = "stdin"
		}
	}
	return strings.Join(names, ", ")
}

// addUnstructured converts u to its typed Go object and files it. Kinds
// the audit does not read are counted without being decoded (a Secret's
// values are never looked at); workloads in removed apiVersions are read
// as their successors and keep the version they were written in; objects
// of unknown API groups with a pod template are audited as generic
// workloads.
func addUnstructured(inv *inspect.Inventory, u *unstructured.Unstructured, src *inspect.Source) error {
	gvk := u.GroupVersionKind()
	origin := "cluster"
	if src != nil {
		origin = src.File
	}
	where := fmt.Sprintf("%s: %s %q", origin, gvk.Kind, u.GetName())
	if inv.Add(u, src) {
		return nil // a load balancer or scaling object, or a definition
	}
	if !scheme.Scheme.IsGroupRegistered(gvk.Group) {
		return wrapWhere(where, inv.AddCustomResource(u, src))
	}
	written := gvk.GroupVersion().String()
	if gvk == (schema.GroupVersionKind{Group: "policy", Version: "v1beta1", Kind: "PodDisruptionBudget"}) {
		return addLegacyPDB(inv, u, src, where)
	}
	if r, ok := inspect.RemovedAPIs[written+" "+gvk.Kind]; ok {
		gvk = schema.FromAPIVersionAndKind(r.Replacement, gvk.Kind)
		u.SetGroupVersionKind(gvk)
	} else if !scheme.Scheme.Recognizes(gvk) {
		newer, ok := newerVersion(gvk)
		if !ok {
			return fmt.Errorf("%s: unknown kind %q in apiVersion %q", origin, gvk.Kind, gvk.GroupVersion())
		}
		// A removed version of a known kind (autoscaling/v2beta2 HPA):
		// its fields the checks read kept their shape, so read it as the
		// newest version.
		gvk = newer
		u.SetGroupVersionKind(gvk)
	}
	if !audited[gvk.GroupKind()] {
		// Never decoded as its type (a Secret's values are not read).
		added, err := inv.AddGenericWorkload(u, src)
		if err == nil && !added {
			inv.Objects++
		}
		return wrapWhere(where, err)
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	n := len(inv.Workloads)
	if !inv.Add(obj, src) {
		inv.Objects++
	}
	if written != gvk.GroupVersion().String() {
		for _, w := range inv.Workloads[n:] {
			w.APIVersion = written
		}
	}
	return nil
}

// newerVersion returns the kind in the group's preferred version when gvk
// names a version the client library no longer has.
func newerVersion(gvk schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	for _, gv := range scheme.Scheme.PrioritizedVersionsForGroup(gvk.Group) {
		if g := gv.WithKind(gvk.Kind); scheme.Scheme.Recognizes(g) {
			return g, true
		}
	}
	return schema.GroupVersionKind{}, false
}

// addLegacyPDB reads a policy/v1beta1 PDB, which has the policy/v1 shape
// but where an empty selector matches no pod.
func addLegacyPDB(inv *inspect.Inventory, u *unstructured.Unstructured, src *inspect.Source, where string) error {
	var pdb policyv1.PodDisruptionBudget
	data, err := json.Marshal(u.Object)
	if err == nil {
		err = json.Unmarshal(data, &pdb)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	empty := pdb.Spec.Selector != nil && len(pdb.Spec.Selector.MatchLabels) == 0 && len(pdb.Spec.Selector.MatchExpressions) == 0
	inv.PDBs = append(inv.PDBs, inspect.PDB{PodDisruptionBudget: pdb, Source: src, LegacyEmptySelector: empty, APIVersion: "policy/v1beta1"})
	inv.Objects++
	return nil
}

// shorten keeps a decoding error to what a user needs: the builder quotes
// the whole offending object in "Object 'Kind' is missing in '{...}'".
func shorten(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, " is missing in '"); i >= 0 {
		return fmt.Errorf("%s", msg[:i]+" is missing")
	}
	return err
}

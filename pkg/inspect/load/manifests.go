// Package load fills an inspect.Inventory from manifests (files,
// directories, stdin, kustomize) without any cluster, or from a live cluster
// through client-go.
package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	b := resource.NewLocalBuilder().Unstructured().Flatten()
	lines := newLineIndex()
	files, err := expandFilenames(opts.Filenames, opts.Recursive)
	if err != nil {
		return err
	}
	if len(files) == 0 && opts.Kustomize == "" {
		return fmt.Errorf("no objects passed to audit (no .json, .yaml or .yml file in %s)", inputNames(opts))
	}
	var remote []string
	for _, f := range files {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			remote = append(remote, f)
			continue
		}
		name, data, err := readInput(f, opts.Stdin)
		if err != nil {
			return err
		}
		lines.add(name, data)
		good, err := checkedDocuments(name, data, inv, opts.Skipped)
		if err != nil {
			return err
		}
		b = b.Stream(bytes.NewReader(good), name)
	}
	if len(remote) > 0 || opts.Kustomize != "" {
		b = b.FilenameParam(false, &resource.FilenameOptions{Filenames: remote, Kustomize: opts.Kustomize})
	}
	ns := opts.Namespace
	if ns == "" {
		ns = "default"
	}
	err = b.Do().Visit(func(info *resource.Info, err error) error {
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
		for _, w := range inv.Workloads[nw:] {
			w.NamespaceDefaulted = defaulted
		}
		for i := range inv.PDBs[np:] {
			inv.PDBs[np+i].NamespaceDefaulted = defaulted
		}
		return nil
	})
	if err != nil {
		return shorten(err)
	}
	if inv.Objects == 0 {
		return fmt.Errorf("no objects passed to audit (in %s)", inputNames(opts))
	}
	return nil
}

// readInput reads file, or stdin for "-" (named STDIN).
func readInput(file string, stdin io.Reader) (string, []byte, error) {
	if file == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return "", nil, fmt.Errorf("reading manifests from stdin: %w", err)
		}
		return "STDIN", data, nil
	}
	data, err := os.ReadFile(file)
	return file, data, err
}

// checkedDocuments returns the documents of data that parse strictly,
// joined again for the builder, and skips those that do not parse and are
// of a kind the audit does not read.
func checkedDocuments(file string, data []byte, inv *inspect.Inventory, skipped func(string)) ([]byte, error) {
	var good bytes.Buffer
	for _, d := range splitDocuments(file, data) {
		if d.blank() {
			continue
		}
		err := d.check()
		if err == nil {
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
		inv.AddNotAudited(notAuditedUnparseable)
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
	if inv.AddLoadBalancerObject(u) {
		return nil
	}
	if !scheme.Scheme.IsGroupRegistered(gvk.Group) {
		return addForeign(inv, u, src, where)
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
		added, err := addGeneric(inv, u, src, where)
		if err == nil && !added {
			inv.Objects++
		}
		return err
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

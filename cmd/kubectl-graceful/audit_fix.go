package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/fix"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// stdinFile is the name the manifest loader gives to objects read from -f -.
const stdinFile = "STDIN"

// fixOptions are the flags of `audit -f PATH --fix`.
type fixOptions struct {
	// fix rewrites the manifests with the plan of internal/fix.
	fix bool
	// diff prints the change as a unified diff instead of writing it.
	diff bool
	// only lists the check IDs whose findings are fixed (--fix-only).
	only []string

	// stdin keeps what the loader read from -f -, to print it fixed.
	stdin bytes.Buffer
	// read holds the digest of each file as the loader read it: the plan
	// is made from that text and applied to nothing else.
	read map[string][sha256.Size]byte
}

// remember records the digest of a file as the loader read it.
func (f *fixOptions) remember(name string, data []byte) {
	if f.read == nil {
		f.read = map[string][sha256.Size]byte{}
	}
	f.read[name] = sha256.Sum256(data)
}

func (f *fixOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.fix, "fix", false, "Rewrite the -f manifests with one combined fix per workload, keeping comments and layout (-f -: print the fixed stream)")
	fs.BoolVar(&f.diff, "diff", false, "With --fix: print a unified diff and change nothing; exit 2 when it is not empty")
	fs.StringSliceVar(&f.only, "fix-only", nil, "With --fix: fix only the findings of these check IDs (comma-separated)")
}

// completeFix keeps, for --fix -f -, a copy of what the loader reads from
// stdin, to edit it.
func (o *auditOptions) completeFix() {
	if o.fix.fix && slices.Contains(o.filenames, "-") && o.In != nil {
		o.In = io.TeeReader(o.In, &o.fix.stdin)
	}
}

// validateFix checks the --fix flags against the mode.
func (o *auditOptions) validateFix() error {
	f := &o.fix
	if !f.fix {
		if f.diff || len(f.only) > 0 {
			return fmt.Errorf("--diff and --fix-only go with --fix")
		}
		return nil
	}
	switch {
	case !o.manifestMode():
		return fmt.Errorf("--fix edits manifest files, not live objects: fix the manifests the objects come from (audit them with -f), or see the combined change with -o yaml")
	case o.kustomize != "":
		return fmt.Errorf("--fix cannot edit -k output (kustomize builds it): run it with -f on the files the kustomization reads")
	case o.output != "table":
		return fmt.Errorf("--fix prints its own report: leave out -o %s", o.output)
	}
	if err := validateIDs(f.only); err != nil {
		return fmt.Errorf("--fix-only: %v", err)
	}
	return nil
}

// fixHook runs between the audit and its report: with --fix it does the
// fix instead of the report (done is true); with -o json, yaml or sarif it
// gives every finding of the combined plan its object's one command, so
// that the patch lines agree with each other and with what --fix writes,
// and so that every machine format carries the same fix (the table shows
// none).
func (o *auditOptions) fixHook(inv *inspect.Inventory, r *inspect.Report, opts inspect.Options) (done bool, err error) {
	if o.fix.fix {
		return true, o.runFix(inv, r, opts)
	}
	if o.output != "table" {
		cmds := fix.NewPlan(inv, r.Findings, o.planOptions(inv, opts)).Commands()
		for i, f := range r.Findings {
			if c, ok := cmds[fix.FindingKey(f)]; ok {
				r.Findings[i].Fix = c
			}
		}
	}
	return false, nil
}

// planOptions are the fix's settings: the audit's, and the version the
// inventory was read for (--kube-version, or live the server's).
func (o *auditOptions) planOptions(inv *inspect.Inventory, opts inspect.Options) fix.Options {
	return fix.Options{PreStopFloorSeconds: o.preStopFloor, ShutdownSeconds: opts.ShutdownSeconds,
		Version: inv.Version, Only: o.fix.only, Skip: o.skip}
}

// runFix plans the combined fix for the report's findings and writes it
// into the files (or prints the diff, or the fixed stdin stream). It
// returns exit 1 when a file or an object could not be edited, exit 2 for
// a non-empty --diff.
func (o *auditOptions) runFix(inv *inspect.Inventory, r *inspect.Report, opts inspect.Options) error {
	plan := fix.NewPlan(inv, r.Findings, o.planOptions(inv, opts))
	stdin := slices.Contains(o.filenames, "-")
	msgs := o.Out
	if o.fix.diff || stdin {
		msgs = o.ErrOut // stdout carries the diff or the stream
	}
	res := o.fixFiles(plan, msgs)
	if stdin && !o.fix.diff && !res.printedStdin {
		if _, err := o.Out.Write(o.fix.stdin.Bytes()); err != nil {
			return err
		}
	}
	for _, m := range plan.Manual {
		line := fmt.Sprintf("manual  %s %s: %s", m.Finding.Object, m.Finding.Check, m.Fix)
		if m.Reason != "" {
			line += " (not done: " + m.Reason + ")"
		}
		fmt.Fprintln(msgs, termsafe.Escape(line))
	}
	fmt.Fprintf(msgs, "%d objects %s in %d files; %d findings left manual\n", res.objects, strings.TrimSpace(o.fixVerb()), res.files, len(plan.Manual))
	switch {
	case res.failed:
		return &cliutil.ExitCodeError{Code: cliutil.ExitError, Err: errors.New("some files or objects were skipped (see above)")}
	case o.fix.diff && res.files > 0:
		return cliutil.Risk()
	}
	return nil
}

// fixResult sums up fixFiles.
type fixResult struct {
	// failed: a file or an object was skipped.
	failed bool
	// objects and files count what changed (or would, with --diff).
	objects, files int
	// printedStdin: the fixed -f - stream went to stdout.
	printedStdin bool
}

// fixFiles applies the plan file by file and reports each object.
func (o *auditOptions) fixFiles(plan *fix.Plan, msgs io.Writer) fixResult {
	var res fixResult
	skip := func(what, why string) {
		fmt.Fprintf(o.ErrOut, "skipped %s: %s\n", termsafe.Escape(what), termsafe.Escape(why))
		res.failed = true
	}
	for _, file := range plan.Files() {
		e, before, err := o.editFile(file, plan)
		if err != nil {
			skip(file, err.Error())
			continue
		}
		// Written first: a change is reported only once it is made.
		if err := o.emitFix(e, before); err != nil {
			skip(file, "not fixed: "+err.Error())
			continue
		}
		for _, d := range byObject(e.Done) {
			fmt.Fprintf(msgs, "%s %s (%s): %s\n", o.fixVerb(), termsafe.Escape(d.Object.String()), termsafe.Escape(file), termsafe.Escape(d.Text))
			res.objects++
		}
		for _, d := range e.Refused {
			skip(fmt.Sprintf("%s (%s)", d.Object, file), d.Text)
		}
		if e.Changed() {
			res.files++
		}
		res.printedStdin = res.printedStdin || (file == stdinFile && !o.fix.diff)
	}
	return res
}

// fixVerb says what happened to an object: fixed, or planned with --diff.
func (o *auditOptions) fixVerb() string {
	if o.fix.diff {
		return "planned"
	}
	return "fixed  "
}

// editFile reads file (or the saved stdin) and applies the plan to it,
// and returns the text it edited. A file that is no longer the text the
// plan was made from (another process changed it since the audit read
// it) is refused: the plan's "0 -> 20" could lower what is now 90.
func (o *auditOptions) editFile(file string, plan *fix.Plan) (*fix.FileEdit, []byte, error) {
	if file == stdinFile {
		e, err := fix.Edit(file, o.fix.stdin.Bytes(), plan, o.namespace)
		return e, o.fix.stdin.Bytes(), err
	}
	data, err := readEditable(file, !o.fix.diff)
	if err != nil {
		return nil, nil, err
	}
	if h, ok := o.fix.read[file]; ok && h != sha256.Sum256(data) {
		return nil, nil, errors.New("changed since the audit read it: not fixed (run the audit again)")
	}
	e, err := fix.Edit(file, data, plan, o.namespace)
	return e, data, err
}

// emitFix prints the diff, prints the fixed stdin stream, or writes the
// file (only while it still holds before, the text that was edited), as
// the flags ask.
func (o *auditOptions) emitFix(e *fix.FileEdit, before []byte) error {
	switch {
	case o.fix.diff:
		d, err := e.Diff()
		if err != nil {
			return err
		}
		_, err = io.WriteString(o.Out, d)
		return err
	case e.File == stdinFile:
		_, err := o.Out.Write(e.After)
		return err
	case e.Changed():
		return writeIfUnchanged(e.File, before, e.After)
	}
	return nil
}

// byObject joins the outcomes of one object into one line, so that a
// workload's change and its new budget read as the one change they are.
func byObject(outcomes []fix.Outcome) []fix.Outcome {
	var out []fix.Outcome
	at := map[inspect.ObjectRef]int{}
	for _, o := range outcomes {
		if i, ok := at[o.Object]; ok {
			out[i].Text += "; " + o.Text
			continue
		}
		at[o.Object] = len(out)
		out = append(out, o)
	}
	return out
}

package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

// readEditable reads a manifest that --fix may rewrite: a regular file,
// and, when it is to be written, one with a write permission bit set (the
// check holds for root too, who could write anyway: a read-only manifest
// is a statement).
func readEditable(file string, write bool) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %v", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if write && st.Mode().Perm()&0o222 == 0 {
		return nil, fmt.Errorf("read-only (mode %v)", st.Mode().Perm())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %v", err)
	}
	return data, nil
}

// writeIfUnchanged writes after into file when the file still holds
// before (its size and content), and refuses otherwise: another process
// changed it while the fix was planned. The check and the rename leave a
// window of microseconds, not of the whole run.
func writeIfUnchanged(file string, before, after []byte) error {
	now, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("cannot read it again before writing: %v", err)
	}
	if len(now) != len(before) || sha256.Sum256(now) != sha256.Sum256(before) {
		return fmt.Errorf("changed while the fix was planned: not written (run the audit again)")
	}
	return writeAtomic(file, after)
}

// writeAtomic replaces file with data through a temporary file in the same
// directory and a rename, keeping the file's mode, so that an interrupted
// run leaves either the old or the new manifest, never half of one. A
// symbolic link is followed: its target is replaced, the link stays.
func writeAtomic(file string, data []byte) error {
	target, err := filepath.EvalSymlinks(file)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".fix-*")
	if err != nil {
		return fmt.Errorf("cannot write beside it: %v", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(st.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

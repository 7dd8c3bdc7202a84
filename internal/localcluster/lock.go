package localcluster

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path, waiting while another
// process (another test package, a second `make cluster-up`) holds it. The
// returned function releases it. The lock dies with the process, so a killed
// build never leaves a stale lock behind.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

package realnode

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A machine without a part of the node is told, in one line, which part
// and which Debian package brings it.
func TestPreflightNamesWhatIsMissing(t *testing.T) {
	if os.Geteuid() != 0 {
		err := Preflight()
		var u *UnavailableError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "needs root") {
			t.Fatalf("not root: %v", err)
		}
		return
	}
	defer func(old func(string) (string, error)) { lookPath = old }(lookPath)
	for _, missing := range []string{"containerd", "runc", "nft", "conntrack"} {
		lookPath = func(bin string) (string, error) {
			if bin == missing {
				return "", exec.ErrNotFound
			}
			return "/usr/bin/" + bin, nil
		}
		err := Preflight()
		var u *UnavailableError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), missing+" is not installed") ||
			!strings.Contains(err.Error(), "make real-node-deps") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s missing: %v", missing, err)
		}
	}
}

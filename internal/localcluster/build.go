package localcluster

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// builder compiles the cluster's binaries into the cache.
type builder struct {
	cacheDir string
	log      io.Writer
}

// binDir is where built binaries live, one file per name and version.
func (b *builder) binDir() string { return filepath.Join(b.cacheDir, "bin") }

// path returns the cached binary of c.
func (b *builder) path(c component) string {
	return filepath.Join(b.binDir(), c.Name+"-"+c.Version)
}

// Binaries maps a component name (etcd, kube-apiserver, ..., kwok, kwokctl)
// to the path of its cached binary.
type Binaries map[string]string

// EnsureBinaries builds every missing component into cacheDir and returns
// their paths. Only the first run builds (about 12 minutes on 2 idle cores,
// most of it kube-scheduler and kube-controller-manager, which compile the
// Kubernetes packages kube-apiserver then reuses; see EstimateSeconds);
// later runs find every binary and return at once.
// Concurrent callers (parallel test packages) wait on a file lock instead of
// building twice. Errors name the component and carry the go tool's output.
func EnsureBinaries(cacheDir string, log io.Writer) (Binaries, error) {
	b := &builder{cacheDir: cacheDir, log: log}
	unlock, err := b.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()

	var missing []component
	total := 0
	for _, c := range components() {
		if _, err := os.Stat(b.path(c)); err != nil {
			missing, total = append(missing, c), total+c.EstimateSeconds
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(log, "First run: building %d control-plane binaries from the Go module proxy into %s.\n", len(missing), b.binDir())
		fmt.Fprintf(log, "This takes about %s on 2 cores (longer while other builds run); later runs reuse them and take seconds.\n", humanSeconds(total))
	}
	for i, c := range missing {
		if err := b.buildOne(c, fmt.Sprintf("[%d/%d] building %s %s", i+1, len(missing), c.Name, c.Version)); err != nil {
			return nil, err
		}
	}
	out := Binaries{}
	for _, c := range components() {
		out[c.Name] = b.path(c)
	}
	return out, nil
}

// EnsureKubectl builds kubectl (same release as the control plane) into
// cacheDir when it is not cached yet and returns its path. Only machines
// without a kubectl on PATH need it; the tests run the plugin through it.
func EnsureKubectl(cacheDir string, log io.Writer) (string, error) {
	c := component{Name: "kubectl", Version: KubernetesVersion, EstimateSeconds: 90, build: buildKube("kubectl")}
	return (&builder{cacheDir: cacheDir, log: log}).ensure(c, "kubectl "+c.Version)
}

// EnsureNodeBinaries builds the real node's kubelet and kube-proxy (same
// release as the control plane, from the same throw-away module) into
// cacheDir when missing, and returns their paths by name. On top of the
// control plane's build cache they take about 20 s and 9 s; from an empty
// one the kubelet alone took about 4 minutes of 2 cores.
func EnsureNodeBinaries(cacheDir string, log io.Writer) (Binaries, error) {
	b := &builder{cacheDir: cacheDir, log: log}
	out := Binaries{}
	for _, c := range []component{
		{Name: "kubelet", Version: KubernetesVersion, EstimateSeconds: 45, build: buildKube("kubelet")},
		{Name: "kube-proxy", Version: KubernetesVersion, EstimateSeconds: 15, build: buildKube("kube-proxy")},
	} {
		p, err := b.ensure(c, c.Name+" "+c.Version+" for the real node")
		if err != nil {
			return nil, err
		}
		out[c.Name] = p
	}
	return out, nil
}

// ensure returns c's cached binary, building it first when it is missing:
// under the cache's build lock, saying on b.log what it builds (what, as
// "kubectl v1.37.2"), about how long that takes and, once built, how long
// it took. Errors name c and carry the go tool's output.
func (b *builder) ensure(c component, what string) (string, error) {
	out := b.path(c)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	unlock, err := b.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	// Another process may have built it while this one waited.
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := b.buildOne(c, "building "+what); err != nil {
		return "", err
	}
	return out, nil
}

// lock makes the cache's bin folder and takes its build lock, so that
// concurrent callers (parallel test packages) wait instead of building
// twice.
func (b *builder) lock() (func(), error) {
	if err := os.MkdirAll(b.binDir(), 0o755); err != nil {
		return nil, err
	}
	return hostproc.Lock(filepath.Join(b.cacheDir, "build.lock"), syscall.LOCK_EX)
}

// buildOne builds c to a temporary file and renames it into place, so an
// interrupted build never leaves a truncated binary that looks cached. Its
// one progress line says what (with c's estimate), then how long it took.
func (b *builder) buildOne(c component, what string) error {
	fmt.Fprintf(b.log, "%s (about %s)...", what, humanSeconds(c.EstimateSeconds))
	start := time.Now()
	tmp := b.path(c) + ".tmp"
	_ = os.Remove(tmp)
	err := c.build(b, tmp)
	if err == nil {
		err = os.Rename(tmp, b.path(c))
	}
	if err != nil {
		fmt.Fprintln(b.log, " failed")
		return fmt.Errorf("building %s %s: %w", c.Name, c.Version, err)
	}
	fmt.Fprintf(b.log, " built in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// goInstall builds a main package that `go install pkg@version` accepts.
func goInstall(pkgAtVersion string) func(b *builder, out string) error {
	return func(b *builder, out string) error {
		dir, err := os.MkdirTemp(b.cacheDir, "gobin-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := b.goCmd(dir, []string{"GOBIN=" + dir}, "install", "-ldflags=-s -w", pkgAtVersion); err != nil {
			return err
		}
		name := filepath.Base(strings.SplitN(pkgAtVersion, "@", 2)[0])
		return os.Rename(filepath.Join(dir, name), out)
	}
}

// goCmd runs the go tool in dir with module mode forced on and cgo off, so
// the binaries are static and independent of the caller's GOFLAGS/GOWORK,
// and env added to the environment.
func (b *builder) goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "CGO_ENABLED=0"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, hostproc.Tail(string(out), 20))
	}
	return nil
}

func humanSeconds(s int) string {
	if s < 90 {
		return fmt.Sprintf("%d s", s)
	}
	return fmt.Sprintf("%d min", (s+30)/60)
}

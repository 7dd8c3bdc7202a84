package localcluster

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ArgoRolloutsVersion is the Argo Rollouts release whose controller the
// --surge tests of Rollouts run. v1.10 needs a newer Go than the project's.
const ArgoRolloutsVersion = "v1.8.3"

// argoModule is the Go module the controller and its CRDs come from.
const argoModule = "github.com/argoproj/argo-rollouts"

// ArgoRollouts is the Argo Rollouts controller built into the cache and
// the folder of its CRDs in the Go module cache.
type ArgoRollouts struct {
	// Controller is the path of the rollouts-controller binary.
	Controller string
	// CRDDir is the release's manifests/crds folder (rollout-crd.yaml).
	CRDDir string
}

// EnsureArgoRollouts builds the Argo Rollouts controller of
// ArgoRolloutsVersion into cacheDir when it is missing (about 2.5 min of
// 2 cores, once per machine; later calls return at once), under the
// cache's build lock, and returns it with its CRDs' folder. The module is
// downloaded by the go tool from the module proxy into the module cache;
// `go install pkg@version` refuses it (its go.mod has replace directives),
// so it is built inside the downloaded module.
func EnsureArgoRollouts(cacheDir string, log io.Writer) (ArgoRollouts, error) {
	b := &builder{cacheDir: cacheDir, log: log}
	unlock, err := b.lock()
	if err != nil {
		return ArgoRollouts{}, err
	}
	defer unlock()
	dir, err := moduleDir(argoModule + "@" + ArgoRolloutsVersion)
	if err != nil {
		return ArgoRollouts{}, err
	}
	c := component{Name: "rollouts-controller", Version: ArgoRolloutsVersion, EstimateSeconds: 156,
		build: func(b *builder, out string) error {
			return b.goCmd(dir, "build", "-ldflags=-s -w", "-o", out, "./cmd/rollouts-controller")
		}}
	out := ArgoRollouts{Controller: b.path(c), CRDDir: filepath.Join(dir, "manifests", "crds")}
	if _, err := os.Stat(out.Controller); err == nil {
		return out, nil
	}
	fmt.Fprintf(log, "building the Argo Rollouts controller %s (about %s, once)...\n", c.Version, humanSeconds(c.EstimateSeconds))
	start := time.Now()
	if err := b.buildOne(c); err != nil {
		return ArgoRollouts{}, fmt.Errorf("building rollouts-controller %s: %w", c.Version, err)
	}
	fmt.Fprintf(log, "rollouts-controller built in %s\n", time.Since(start).Round(time.Second))
	return out, nil
}

// moduleDir downloads module@version into the Go module cache (when it is
// not there yet) and returns its folder there, read-only.
func moduleDir(modAtVersion string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", modAtVersion)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	raw, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(raw, &m); jerr != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s", modAtVersion, err, m.Error)
	}
	return m.Dir, nil
}

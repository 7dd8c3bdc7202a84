package localcluster

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	dir, _, err := download(argoModule + "@" + ArgoRolloutsVersion)
	if err != nil {
		return ArgoRollouts{}, err
	}
	c := component{Name: "rollouts-controller", Version: ArgoRolloutsVersion, EstimateSeconds: 156,
		build: func(b *builder, out string) error {
			return b.goCmd(dir, nil, "build", "-ldflags=-s -w", "-o", out, "./cmd/rollouts-controller")
		}}
	controller, err := (&builder{cacheDir: cacheDir, log: log}).ensure(c, "the Argo Rollouts controller "+c.Version)
	return ArgoRollouts{Controller: controller, CRDDir: filepath.Join(dir, "manifests", "crds")}, err
}

// download downloads module@version into the Go module cache (when it is
// not there yet) and returns its folder there, read-only, and its go.mod.
func download(modAtVersion string) (dir, gomod string, err error) {
	cmd := exec.Command("go", "mod", "download", "-json", modAtVersion)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	raw, err := cmd.Output()
	var m struct{ Dir, GoMod, Error string }
	if jerr := json.Unmarshal(raw, &m); jerr != nil || m.Dir == "" {
		return "", "", fmt.Errorf("go mod download %s: %v %s", modAtVersion, err, m.Error)
	}
	return m.Dir, m.GoMod, nil
}

// writeModule writes a throw-away module's files into dir, by their path
// in it.
func writeModule(dir string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

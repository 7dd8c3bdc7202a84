package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// buildKube builds k8s.io/kubernetes/cmd/<name>. `go install` refuses
// k8s.io/kubernetes because its go.mod replaces the k8s.io/* staging modules
// with local folders, so a throw-away module requires it and replaces each
// staging module with its published v0.x twin instead.
func buildKube(name string) func(b *builder, out string) error {
	return func(b *builder, out string) error {
		dir, err := b.kubeModule()
		if err != nil {
			return err
		}
		return b.goCmd(dir, nil, "build", "-o", out, "-ldflags", kubeVersionLDFlags(), "k8s.io/kubernetes/cmd/"+name)
	}
}

// kubeVersionLDFlags stamps the real version: built from the module proxy the
// server would report "v0.0.0-master+$Format:%H$", which breaks
// `kubectl version` and every version-gated check in the plugin.
func kubeVersionLDFlags() string {
	major, minor := "1", strings.Split(strings.TrimPrefix(KubernetesVersion, "v"), ".")[1]
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+KubernetesVersion,
			"-X", pkg+".gitMajor="+major,
			"-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean",
		)
	}
	return "-s -w " + strings.Join(flags, " ")
}

// kubeCommands are the k8s.io/kubernetes commands the throw-away module
// builds: the control plane, kubectl, and the real node's kubelet and
// kube-proxy (docs/real-node.md).
var kubeCommands = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kubelet", "kube-proxy"}

// kubeModule writes (once) the throw-away module that builds the control
// plane and returns its folder.
func (b *builder) kubeModule() (string, error) {
	dir := filepath.Join(b.cacheDir, "src", "kubernetes-"+KubernetesVersion)
	// The blank imports make `go mod tidy` resolve every dependency of the
	// commands in one pass. A module tidied for fewer commands (an older
	// checkout's, before the real node) is tidied again.
	imports := "//go:build tools\n\npackage build\n\nimport (\n"
	for _, c := range kubeCommands {
		imports += "\t_ \"k8s.io/kubernetes/cmd/" + c + "\"\n"
	}
	imports += ")\n"
	if old, err := os.ReadFile(filepath.Join(dir, "tools.go")); err == nil && string(old) == imports {
		if _, err := os.Stat(filepath.Join(dir, "go.sum")); err == nil {
			return dir, nil
		}
	}
	replaces, err := stagingReplaces()
	if err != nil {
		return "", err
	}
	gomod := "module localcluster.build/kubernetes\n\ngo 1.26\n\nrequire k8s.io/kubernetes " + KubernetesVersion + "\n\nreplace (\n" + replaces + ")\n"
	if err := writeModule(dir, map[string]string{"go.mod": gomod, "tools.go": imports}); err != nil {
		return "", err
	}
	if err := b.goCmd(dir, nil, "mod", "tidy"); err != nil {
		_ = os.Remove(filepath.Join(dir, "go.sum"))
		return "", err
	}
	return dir, nil
}

// stagingReplaces derives the replace block from kubernetes' own go.mod:
// every `k8s.io/X => ./staging/src/k8s.io/X` becomes `k8s.io/X => k8s.io/X
// v0.<minor>.<patch>`, so the list follows the pinned release instead of
// being typed by hand.
func stagingReplaces() (string, error) {
	_, gomodPath, err := download("k8s.io/kubernetes@" + KubernetesVersion)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(gomodPath)
	if err != nil {
		return "", err
	}
	f, err := modfile.Parse(gomodPath, data, nil)
	if err != nil {
		return "", err
	}
	staging := "v0." + strings.TrimPrefix(KubernetesVersion, "v1.")
	var b strings.Builder
	for _, r := range f.Replace {
		if strings.HasPrefix(r.New.Path, "./staging/") {
			fmt.Fprintf(&b, "\t%s => %s %s\n", r.Old.Path, r.Old.Path, staging)
		}
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("no staging replaces found in %s", gomodPath)
	}
	return b.String(), nil
}

// buildEtcd builds the etcd server. Its module root is the main package, and
// its go.mod replaces sibling modules with local folders, so (as for
// kubernetes) a throw-away module pins those siblings to the same release.
func buildEtcd(b *builder, out string) error {
	dir := filepath.Join(b.cacheDir, "src", "etcd-"+EtcdVersion)
	gomod := "module localcluster.build/etcd\n\ngo 1.26\n\nrequire go.etcd.io/etcd/server/v3 " + EtcdVersion + "\n\nreplace (\n"
	for _, m := range []string{"api", "client/pkg", "client", "pkg"} {
		gomod += fmt.Sprintf("\tgo.etcd.io/etcd/%s/v3 => go.etcd.io/etcd/%s/v3 %s\n", m, m, EtcdVersion)
	}
	gomod += ")\n"
	imports := "//go:build tools\n\npackage build\n\nimport _ \"go.etcd.io/etcd/server/v3\"\n"
	if err := writeModule(dir, map[string]string{"go.mod": gomod, "tools.go": imports}); err != nil {
		return err
	}
	if err := b.goCmd(dir, nil, "mod", "tidy"); err != nil {
		return err
	}
	return b.goCmd(dir, nil, "build", "-o", out, "-ldflags", "-s -w", "go.etcd.io/etcd/server/v3")
}

package localcluster

import (
	"io"
	"os"
	"path/filepath"
)

// TraefikVersion is the Traefik release built as the local cluster's
// Ingress controller. The module proxy serves it whole; v3.7.13 is
// refused (8 dependency versions missing), v3.7.10-12 untried. Its
// EndpointSlice handling decides what the tests assert: terminating
// endpoints kept as fenced servers (v3.3.0+) and condition-only updates
// applied (v3.6.22+, traefik/traefik#13405). docs/ingress.md.
const TraefikVersion = "v3.7.9"

// traefikModule is the throw-away main module that builds Traefik:
// `go install` refuses it (its go.mod has replace directives), so this
// module requires it and repeats its replaces and its exclude. Since
// v3.7.0 its go.mod replaces github.com/traefik/traefik/dynamic/ext with
// a nested module the module zip leaves out: ext is a stub declaring the
// two empty types its dynamic configuration embeds.
var traefikModule = map[string]string{
	"go.mod": `module graceful.local/traefik-build

go 1.26.0

require github.com/traefik/traefik/v3 ` + TraefikVersion + `

replace github.com/traefik/traefik/dynamic/ext => ./ext

replace (
	github.com/abbot/go-http-auth => github.com/containous/go-http-auth v0.4.1-0.20200324110947-a37a7636d23e
	github.com/gorilla/mux => github.com/containous/mux v0.0.0-20250523120546-41b6ec3aed59
)

exclude github.com/tencentcloud/tencentcloud-sdk-go v3.0.83+incompatible
`,
	"tools.go":   "//go:build tools\n\npackage build\n\nimport _ \"github.com/traefik/traefik/v3/cmd/traefik\"\n",
	"ext/go.mod": "module github.com/traefik/traefik/dynamic/ext\n\ngo 1.26.0\n",
	"ext/ext.go": `// Package ext stands in for the nested module Traefik's go.mod replaces.
package ext

// HTTP is embedded inline in dynamic.HTTPConfiguration.
type HTTP struct{}

// Router is embedded inline in dynamic.Router.
type Router struct{}
`,
}

// BuiltTraefik returns the cached Traefik binary, "" when it is not
// built (make ingress builds it).
func BuiltTraefik(cacheDir string) string {
	b := &builder{cacheDir: cacheDir}
	p := b.path(component{Name: "traefik", Version: TraefikVersion})
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// EnsureTraefik builds Traefik TraefikVersion into cacheDir when it is
// missing (about 12 min of 2 idle cores and 3.2 GB of memory at its link,
// once per machine; 24 min under load; later calls return at once),
// under the cache's build lock, and returns the binary's path. The build
// is unstamped ("dev"), so it never checks for a newer version. Errors
// carry the go tool's output.
func EnsureTraefik(cacheDir string, log io.Writer) (string, error) {
	c := component{Name: "traefik", Version: TraefikVersion, EstimateSeconds: 720,
		build: func(b *builder, out string) error {
			dir := filepath.Join(b.cacheDir, "src", "traefik-"+TraefikVersion)
			if err := writeModule(dir, traefikModule); err != nil {
				return err
			}
			return b.goCmd(dir, nil, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "github.com/traefik/traefik/v3/cmd/traefik")
		}}
	return (&builder{cacheDir: cacheDir, log: log}).ensure(c, "the Ingress controller Traefik "+c.Version)
}

# Release targets, included by the Makefile. GoReleaser, krew and krew's
# validator are pinned in internal/tools and built from the Go module proxy
# into ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-graceful/tools/, once per version.
GO ?= go

.PHONY: dist krew-manifest

# dist: snapshot release into dist/: archives for linux, darwin and windows on
# amd64 and arm64, and checksums.txt. Needs no tag, no clean tree, no network
# beyond the module proxy (for the first GoReleaser build).
dist:
	$(GO) run ./hack/tool goreleaser release --snapshot --clean

# krew-manifest: render krew/graceful.yaml for dist/'s archives (file:// URIs,
# real sha256) into dist/krew/graceful.yaml. Run `make dist` first.
krew-manifest:
	$(GO) run ./hack/krew-manifest

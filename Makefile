# Minimal Makefile of the dist branch; the lead's Makefile on main replaces it
# and keeps the `include dist.mk` line.
GO ?= go

.PHONY: build test
build:
	$(GO) build -o bin/kubectl-graceful ./cmd/kubectl-graceful

test:
	$(GO) test ./...

include dist.mk

# kubectl-graceful: build, local cluster, demo and tests.
# `make demo` and `make test` are the two commands README.md promises.

GO       ?= go
BIN      := bin/kubectl-graceful
# The plugin is found by kubectl on PATH, as krew installs it.
export PATH := $(CURDIR)/bin:$(PATH)

.PHONY: build cluster-up cluster-down demo docs ingress lint real-node-deps test test-faults test-unit vet

# Stamps the checkout's commit (and a -dirty mark), so that `kubectl
# graceful version` names what was built; release builds stamp a version and date too.
VERSION_PKG := github.com/kubectl-graceful/kubectl-graceful/internal/version
COMMIT = $(shell git describe --always --dirty 2>/dev/null || echo unknown)
build:
	@echo "go build -o $(BIN) ./cmd/kubectl-graceful (commit $(COMMIT))"
	@$(GO) build -ldflags "-X $(VERSION_PKG).Commit=$(COMMIT)" -o $(BIN) ./cmd/kubectl-graceful

# Idempotent: reuses a running cluster. The last line it prints is
# `export KUBECONFIG=<path>`. Beside the kwok nodes it starts the real nodes
# real-node-0 and real-node-1 (docs/real-node.md) where the machine can run
# them (Linux, root, the packages of `make real-node-deps`); elsewhere it
# says why and keeps the kwok nodes, except under CI=true, where that is a
# failure.
cluster-up:
	@$(GO) run ./hack/cluster up

cluster-down:
	@$(GO) run ./hack/cluster down

# Builds the Ingress controller, Traefik, into the cache once per machine
# (about 12 min on 2 idle cores, 3.2 GB of memory; docs/ingress.md); the
# next cluster-up starts it beside the real nodes. make test builds it
# first: its tests need it; make demo does not.
ingress:
	@$(GO) run ./hack/cluster ingress

# The Debian packages the real node runs on (containerd, runc, CNI plugins,
# nftables, busybox for the shell image); installs only what is missing.
REAL_NODE_PACKAGES := containerd runc containernetworking-plugins iptables nftables conntrack busybox-static iproute2
real-node-deps:
	@missing=$$(for p in $(REAL_NODE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# Starts the local cluster, applies examples/ and shows what the plugin finds,
# with one real drain of real-node-0 where the real nodes run. As root with
# apt-get, the real nodes' Debian packages install while cluster-up builds
# and starts the cluster, so that it starts the real nodes too (demo.sh
# sets them up itself where they are still missing).
demo: build
	@deps=; if [ "$${GRACEFUL_NO_REAL_NODES:-}" != 1 ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  make --no-print-directory real-node-deps & deps=$$!; \
	fi; \
	$(GO) run ./hack/cluster up; rc=$$?; \
	[ -z "$$deps" ] || wait $$deps || true; \
	[ $$rc = 0 ] && hack/demo.sh

# Every test: gofmt, go vet and golangci-lint, then the unit tests and the
# e2e tests against the local cluster (started first, so the one-time
# control-plane build shows its progress here), each control-plane fault
# scenario once. GRACEFUL_E2E=1 asks for the e2e tests. The Argo Rollouts
# controller the --surge tests run is built first (once per machine): only
# the tests need it, not make cluster-up or make demo. So is the Ingress
# controller, before cluster-up, which starts it.
#
# The e2e tests mostly wait (on simulated preStop hooks, grace periods,
# --timeout), so up to E2E_PARALLEL tests of a package run at once instead
# of GOMAXPROCS (2 here); the five fault tests of pkg/drain each hold a slot
# while they wait their turn on the fault cluster, hence 8. The two
# longest packages (HEAVY_PACKAGES) are listed first, so that they start
# side by side and the short ones fill in after (go test keeps the order).
#
# The --probe tests (TIMING_TESTS) hold the first failed request within
# 150 ms of the watch's own times; beside the other packages' drains (real
# containers on the real nodes) the two watches' delivery drifted further
# apart than that, so they run after the rest, alone on the machine.
E2E_PARALLEL   ?= 8
HEAVY_PACKAGES := ./pkg/timeline ./pkg/drain
TIMING_TESTS   := ^(TestWatchProbeE2E|TestWatchRolloutProbeE2E)$$
test: build vet lint ingress cluster-up
	@$(GO) run ./hack/cluster argo-rollouts
	GRACEFUL_E2E=1 GRACEFUL_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 60m -parallel $(E2E_PARALLEL) -skip '$(TIMING_TESTS)' $(HEAVY_PACKAGES) ./...
	GRACEFUL_E2E=1 GRACEFUL_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m -run '$(TIMING_TESTS)' ./pkg/timeline

# The fault scenarios (docs/reliability.md), five runs in a row each: the
# control plane's take turns on a cluster of their own, the real nodes'
# (RealNode...) run on this checkout's real nodes. .ci/run runs it after
# `make test`.
FAULT_TESTS := APIServerPaused|APIServerRestarted|APIServerDownAtStart|ConcurrentOverlappingDrains|NodeUncordonedMidDrain|RealNodeKubeletPaused|RealNodeKubeletRestarted|RealNodeContainerdRestartedMidDrain|RealNodeLastEndpointLeaves|RealNodeProbeRouteDropped|RealNodeNotReadyMidDrain|RefusedByAdmissionUntilItsOperatorMovesIt
test-faults: build cluster-up
	GRACEFUL_E2E=1 GRACEFUL_FAULT_RUNS=5 GRACEFUL_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 60m -run '$(FAULT_TESTS)' ./pkg/drain ./pkg/timeline ./cmd/kubectl-graceful

# Unit tests only (no cluster): a plain `go test ./...` skips the e2e tests.
test-unit:
	$(GO) test ./...

vet:
	@test -z "$$(gofmt -l cmd pkg internal hack bench test)" || { echo "gofmt needed:"; gofmt -l cmd pkg internal hack bench test; exit 1; }
	$(GO) vet ./...

# golangci-lint with .golangci.yml. The version pinned in internal/tools is
# built from the module proxy into the per-user tool cache on first use.
lint:
	@lint=$$($(GO) run ./hack/tool golangci-lint) && "$$lint" run ./...

# The check table and sections of docs/audit.md, from pkg/inspect's
# catalogue (a test fails while they are stale).
docs:
	$(GO) run ./hack/checkdocs

# Release archives (make dist) and the krew manifest for them (make krew-manifest).
include dist.mk

# Benchmarks against kubectl and kube-score (make bench, BENCH_SCALE=small).
include bench/bench.mk

# Benchmarks (bench/README.md): `make bench` prints one table of
# our commands against what users run today, measured in the same run on the
# local cluster. BENCH_SCALE=small (under 3 minutes) or tiny (the smoke
# test's scale); the default scale takes under 20 minutes on 2 cores.
# Included by the top-level Makefile, which provides GO, BIN, build and
# cluster-up.

BENCH_SCALE ?= default
# BENCH_ONLY, when set, names the benchmarks to run (the bench command's
# -only: audit, fleet, manifests, drain, pool, drainwatch, watch, rollout,
# realnode), e.g. `make bench BENCH_ONLY=drainwatch`.
BENCH_ONLY ?=
# BENCH_ARGS, when set, are more flags of the bench command, e.g.
# `make bench BENCH_ARGS=-watch-pool-exit-after=1s` (go run ./bench/cmd/bench -h).
BENCH_ARGS ?=

.PHONY: bench bench-fixture

bench: build cluster-up
	$(GO) run ./bench/cmd/bench -scale $(BENCH_SCALE) -binary $(CURDIR)/$(BIN) $(if $(BENCH_ONLY),-only $(BENCH_ONLY)) $(BENCH_ARGS)

# Only the manifest files of the fixture, for offline runs (no cluster).
bench-fixture:
	$(GO) run ./bench/cmd/fixture -scale $(BENCH_SCALE) -out _output/bench/manifests

#!/usr/bin/env bash
# CI's sanitizer pass (RELIABILITY.md):
#   1. `make test-asan`: the core and HTTP/1 unit tests under AddressSanitizer with LeakSanitizer,
#      the package shaped by BREAKWATER_UNIT_ONLY=1 (only what those tests need is built);
#   2. `make fuzz` for CI_FUZZ_SECONDS (5) per harness, the HTTP/1 request parser's included, the
#      package shaped by BREAKWATER_FUZZ=1 (the core, the HTTP/1 parser and the harnesses only).
# Two sanitized builds, not one: a test runner built with -sanitize=fuzzer gets libFuzzer's `main`
# too and does not link. Prints each step's wall time and the load, so the CI budget (well under
# 30 minutes in all on 2 cores) stays visible in the log.
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}

step() {
    local name=$1 started
    shift
    started=$(date +%s)
    echo "== ci-sanitizers: $name"
    "$@"
    echo "== ci-sanitizers: $name took $(( $(date +%s) - started ))s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
}

step "unit tests under ASan + LSan (make test-asan)" "$MAKE" --no-print-directory test-asan
step "fuzz, ${CI_FUZZ_SECONDS:-5}s per harness (make fuzz)" "$MAKE" --no-print-directory fuzz \
    FUZZ_SECONDS="${CI_FUZZ_SECONDS:-5}"

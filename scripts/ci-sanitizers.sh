#!/usr/bin/env bash
# CI's sanitizer pass (issue 13), on ONE sanitized build: the package shaped as the unit tests
# plus the fuzz harnesses (BREAKWATER_UNIT_ONLY=1 BREAKWATER_FUZZ=1, see Package.swift), compiled
# once with -sanitize=fuzzer,address into .build-sanitizers. Then
#   1. the core and HTTP/1 unit tests with AddressSanitizer and LeakSanitizer reports fatal;
#   2. CI_FUZZ_SECONDS (5) of every libFuzzer harness, the HTTP/1 request parser's included.
# (The fuzzer instrumentation in the test binary is inert: its `main` is the test runner's.)
# Prints each step's wall time and the load, so the CI budget (well under 30 minutes in all on
# 2 cores) stays visible in the log.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SCRATCH=.build-sanitizers
export BREAKWATER_UNIT_ONLY=1 BREAKWATER_FUZZ=1
flags=(--scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address)

step() {
    local name=$1 started
    shift
    started=$(date +%s)
    echo "== ci-sanitizers: $name"
    "$@"
    echo "== ci-sanitizers: $name took $(( $(date +%s) - started ))s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
}

build() {
    mkdir -p "$SCRATCH"
    if ! "$SWIFT" build --build-tests "${flags[@]}" >"$SCRATCH/build.log" 2>&1; then
        tail -40 "$SCRATCH/build.log"
        echo "the sanitizer build failed (log: $SCRATCH/build.log)"
        return 1
    fi
}

unit_tests() {
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0 \
        "$SWIFT" test --skip-build "${flags[@]}" 2>&1 | tee "$SCRATCH/test.log" | grep -E "Test run with|✘|ERROR: (Address|Leak)Sanitizer|SUMMARY:" 
    # The pipeline's status is grep's; the test runner's decides.
    [ "${PIPESTATUS[0]}" -eq 0 ] || { tail -60 "$SCRATCH/test.log"; return 1; }
}

step "sanitizer build (unit tests + fuzz harnesses, fuzzer+address)" build
step "unit tests under ASan + LSan" unit_tests
step "fuzz, ${CI_FUZZ_SECONDS:-5}s per harness" env FUZZ_SCRATCH="$SCRATCH" FUZZ_SECONDS="${CI_FUZZ_SECONDS:-5}" \
    bash scripts/fuzz.sh

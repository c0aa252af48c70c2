#!/usr/bin/env bash
# CI's sanitizer pass (issue 13): the core and HTTP/1 unit tests under AddressSanitizer with leak
# detection (`make test-asan`), then a few seconds of every libFuzzer harness (`make fuzz` with
# CI_FUZZ_SECONDS, and the HTTP/1 request parser's harness). Prints the wall time of each step so
# the CI budget (well under 30 minutes in all on 2 cores) stays visible in the log.
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
SECONDS_PER_HARNESS=${CI_FUZZ_SECONDS:-5}

step() {
    local name=$1
    shift
    local started
    started=$(date +%s)
    echo "== ci-sanitizers: $name"
    "$@"
    echo "== ci-sanitizers: $name took $(( $(date +%s) - started ))s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
}

step "unit tests under ASan" "$MAKE" --no-print-directory test-asan
step "short fuzz (${SECONDS_PER_HARNESS}s per harness)" "$MAKE" --no-print-directory fuzz FUZZ_SECONDS="$SECONDS_PER_HARNESS"
step "HTTP/1 request parser fuzz (${SECONDS_PER_HARNESS}s)" env FUZZ_HTTP1_SECONDS="$SECONDS_PER_HARNESS" \
    bash Fuzz/HTTP1RequestParser/fuzz.sh

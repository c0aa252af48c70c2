#!/usr/bin/env bash
# Builds the HTTP/1.1 request parser's libFuzzer harness with -sanitize=fuzzer,address into
# .build-fuzz-http1 and runs it for FUZZ_HTTP1_SECONDS (default 60) from the committed seed
# corpus; the growing corpus and any crash input stay under .build-fuzz-http1 (ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFT=${SWIFT:-swift}
SECONDS_TO_RUN=${FUZZ_HTTP1_SECONDS:-60}
SCRATCH=.build-fuzz-http1
HERE=Fuzz/HTTP1RequestParser

export BREAKWATER_FUZZ_HTTP1=1
"$SWIFT" build --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address \
    --product FuzzHTTP1RequestParser 2>&1 | grep -E "^error|Build of product" || true
test -x "$SCRATCH/debug/FuzzHTTP1RequestParser" || { echo "build of FuzzHTTP1RequestParser failed"; exit 1; }

mkdir -p "$SCRATCH/corpus" "$SCRATCH/crashes"
log="$SCRATCH/fuzz.log"
echo "== fuzzing the HTTP/1.1 request parser for ${SECONDS_TO_RUN}s"
if ! "$SCRATCH/debug/FuzzHTTP1RequestParser" "$SCRATCH/corpus" "$HERE/Corpus" -dict="$HERE/http1.dict" \
    -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$SCRATCH/crashes/" >"$log" 2>&1; then
    echo "!! the request parser's harness found a crash; input and log: $SCRATCH/crashes, $log"
    tail -40 "$log"
    exit 1
fi
executions=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
coverage=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || echo "?")
echo "FuzzHTTP1RequestParser: ${executions} executions, ${coverage}, no crash"

#!/usr/bin/env bash
# `make fuzz-http1`: builds the HTTP/1.1 parsers' libFuzzer harnesses (the request parser of the
# client side, the response parser of the origin side) with -sanitize=fuzzer,address into
# .build-fuzz-http1 and runs each for FUZZ_HTTP1_SECONDS (default 60) from its committed seed
# corpus; the growing corpora and any crash input stay under .build-fuzz-http1 (ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFT=${SWIFT:-swift}
SECONDS_TO_RUN=${FUZZ_HTTP1_SECONDS:-60}
SCRATCH=.build-fuzz-http1

export BREAKWATER_FUZZ_HTTP1=1
# fuzz NAME DIR: builds FuzzHTTP1<NAME> and runs it on DIR's corpus and dictionary.
fuzz() {
    local product="FuzzHTTP1$1" here=$2 log
    "$SWIFT" build --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address \
        --product "$product" 2>&1 | grep -E "^error|Build of product" || true
    test -x "$SCRATCH/debug/$product" || { echo "build of $product failed"; exit 1; }
    mkdir -p "$SCRATCH/corpus-$1" "$SCRATCH/crashes"
    log="$SCRATCH/fuzz-$1.log"
    echo "== fuzzing the HTTP/1.1 $1 for ${SECONDS_TO_RUN}s"
    if ! "$SCRATCH/debug/$product" "$SCRATCH/corpus-$1" "$here/Corpus" -dict="$here/http1.dict" \
        -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$SCRATCH/crashes/$1-" >"$log" 2>&1; then
        echo "!! the $1 harness found a crash; input and log: $SCRATCH/crashes, $log"
        tail -40 "$log"
        exit 1
    fi
    local executions coverage
    executions=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
    coverage=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || echo "?")
    echo "$product: ${executions} executions, ${coverage}, no crash"
}

fuzz RequestParser Fuzz/HTTP1RequestParser
fuzz ResponseParser Fuzz/HTTP1ResponseParser

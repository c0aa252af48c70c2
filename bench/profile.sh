#!/usr/bin/env bash
# `make profile-hit`: where the hit path's time goes. Starts the demo origin and Breakwater with
# one loop on CPU 0, registers a document, drives hashed-GET hits with wrk (CPU 1) and samples
# the loop with `perf record` meanwhile; prints the share of samples per library (kernel, libc,
# Swift runtime, libevent, OpenSSL, Breakwater) and the hottest symbols.
#   PROFILE_SECONDS=8   length of the sampled run
#   BENCH_BIN=PATH      profile this binary instead of building .build/release/breakwater
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECONDS_TO_SAMPLE=${PROFILE_SECONDS:-8}

bench_install_traps
bench_install_all
bench_install_packages linux-perf
bench_build
command -v perf >/dev/null || bench_die "perf is not installed"

bench_start_origin ORIGIN_PID ORIGIN_URL
bench_write_config "$BENCH_TMP/profile.yaml" "$ORIGIN_URL" "$(printf '  rules:\n    - operation: GetLaunchDetail\n      ttl: 1h')"
bench_start_breakwater profiled "$BENCH_TMP/profile.yaml" 1 0 BW_PID BW_URL BW_ADMIN

DOCUMENT='query GetLaunchDetail($id: ID!) { launch(id: $id) { id site isBooked mission { name missionPatch } rocket { id name type } } }'
HASH=$(bench_hash "$DOCUMENT")
EXTENSIONS=$(printf '{"persistedQuery":{"version":1,"sha256Hash":"%s"}}' "$HASH")
curl -sf -o /dev/null "$BW_URL" -H 'Content-Type: application/json' \
  --data-binary "$(jq -cn --arg q "$DOCUMENT" --argjson e "$EXTENSIONS" '{query: $q, operationName: "GetLaunchDetail", variables: {id: "60"}, extensions: $e}')"
HIT="${BW_URL}?operationName=GetLaunchDetail&variables=$(bench_uri '{"id":"60"}')&extensions=$(bench_uri "$EXTENSIONS")"
wrk -t1 -c8 -d1s "$HIT" >/dev/null

taskset -c 1 wrk -t1 -c50 -d"$((SECONDS_TO_SAMPLE + 2))s" --latency "$HIT" >"$BENCH_TMP/wrk.txt" &
WRK=$!
sleep 1
perf record -F 2999 -g -p "$BW_PID" -o "$BENCH_TMP/perf.data" -- sleep "$SECONDS_TO_SAMPLE" >/dev/null 2>&1
wait "$WRK"
echo "wrk during the sample: $(bench_parse_wrk "$BENCH_TMP/wrk.txt") (req/s p50_ms p99_ms errors)"
echo
echo "== samples per library (self time)"
perf report -i "$BENCH_TMP/perf.data" --stdio --no-children --sort dso 2>/dev/null | grep -E '^ +[0-9]' | head -15
echo
echo "== hottest symbols (self time)"
perf report -i "$BENCH_TMP/perf.data" --stdio --no-children --sort dso,symbol 2>/dev/null | grep -E '^ +[0-9]' | head -30

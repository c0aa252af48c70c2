#!/usr/bin/env bash
# `make bench-callgrind`: instructions per request on the proxy's paths, counted by callgrind.
# Unlike wrk figures, these do not move with the machine's load, so they compare two versions of
# the code on a shared machine. Each scenario starts Breakwater (one loop) under
# `valgrind --tool=callgrind` with instrumentation off, warms it up, switches it on for exactly
# CALLGRIND_REQUESTS requests sent over one keep-alive connection (bench/fixed_requests.py), and
# prints instructions per request and the functions that spend the most of them (self cost).
#   CALLGRIND_REQUESTS=2000   requests counted per scenario
#   CALLGRIND_SCENARIOS="hit-get hit-post hit-gzip miss"   which scenarios (also: churn, a
#                             hashed-GET hit on a connection of its own with `Connection: close`;
#                             hit-h2, the hashed-GET hit over HTTP/2 with prior knowledge, 10
#                             streams at a time on one connection by h2load; miss-default, the
#                             miss in Breakwater's default configuration (`origin.schema: auto`,
#                             `default_ttl: 0s`, no rules) answered with 1 KiB by the nginx
#                             origin's /page; miss-traced and hit-traced, the miss and the
#                             hashed-GET hit with span export on (`tracing.sample_ratio: 1`, every
#                             request recorded, the spans sent to the nginx origin's /static, the
#                             exporter's thread counted too: docs/TRACING.md), and hit-unsampled,
#                             the hit with export on and no request recorded (`sample_ratio: 0`);
#                             not by default)
#   CALLGRIND_TOP=25          functions listed per scenario (0: none)
#   CALLGRIND_INCLUSIVE=1     list them by inclusive cost (callees included) instead of self cost
#   BENCH_BIN=PATH            this binary instead of building .build/release/breakwater
#   CALLGRIND_OPTIONS="--dump-instr=yes"   more valgrind options (per-instruction counts for objdump)
#   CALLGRIND_SAME_IDS=1      count requests with the warm-up's variables again (the figures before
#                             2026-11-25: a tenth of the counted misses were then memo hits)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REQUESTS=${CALLGRIND_REQUESTS:-2000}
SCENARIOS=${CALLGRIND_SCENARIOS:-"hit-get hit-post hit-gzip miss"}
TOP=${CALLGRIND_TOP:-25}
INCLUSIVE=$([ "${CALLGRIND_INCLUSIVE:-0}" = "1" ] && echo yes || echo no)
FIRST_ID=$([ "${CALLGRIND_SAME_IDS:-0}" = "1" ] && echo 1000000 || echo 2000000)

bench_install_traps
bench_install_all
bench_install_packages valgrind python3 nghttp2-client
bench_build
NGINX=$(bench_nginx_bin)
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift 6 writes and gives up: count a copy
# without debug sections (the symbol table stays, so functions keep their names).
objcopy --strip-debug "$BREAKWATER" "$BENCH_TMP/breakwater" && BREAKWATER="$BENCH_TMP/breakwater"

DOCUMENT='query GetLaunchDetail($id: ID!) { launch(id: $id) { id site isBooked mission { name small: missionPatch(size: SMALL) large: missionPatch(size: LARGE) } rocket { id name type } } upcoming: launches(pageSize: 3) { cursor hasMore launches { id site mission { name missionPatch } rocket { id name type } } } }'
LIVE=${DOCUMENT/GetLaunchDetail/GetLaunchLive}
HASH=$(bench_hash "$DOCUMENT")
EXTENSIONS=$(printf '{"persistedQuery":{"version":1,"sha256Hash":"%s"}}' "$HASH")
HIT_TARGET="/graphql?operationName=GetLaunchDetail&variables=$(bench_uri '{"id":"60"}')&extensions=$(bench_uri "$EXTENSIONS")"
jq -cn --arg q "$DOCUMENT" --argjson e "$EXTENSIONS" \
  '{query: $q, operationName: "GetLaunchDetail", variables: {id: "60"}, extensions: $e}' >"$BENCH_TMP/register.json"
jq -cn --arg q "$DOCUMENT" '{query: $q, operationName: "GetLaunchDetail", variables: {id: "42"}}' >"$BENCH_TMP/post-hit.json"
jq -cn --arg q "$LIVE" '{query: $q, operationName: "GetLaunchLive", variables: {id: "@ID@"}}' >"$BENCH_TMP/live.json"
# About 3 KiB of JSON (twenty launches): over the 1 KiB below which nothing is compressed.
jq -cn '{query: "query GetLaunchDetail { launches(pageSize: 20) { launches { id site mission { name missionPatch } rocket { id name type } } } }", operationName: "GetLaunchDetail"}' >"$BENCH_TMP/list.json"

bench_start_origin ORIGIN_PID ORIGIN_URL
bench_write_page "$BENCH_TMP/page.json"
start_origin_nginx NGX_ORIGIN
RULES=$(printf '  rules:\n    - operation: GetLaunchDetail\n      ttl: 1h\n    - operation: GetLaunchLive\n      ttl: 0s')
bench_write_config "$BENCH_TMP/hit.yaml" "$ORIGIN_URL" "$RULES"
bench_write_config "$BENCH_TMP/miss.yaml" "http://$NGX_ORIGIN/graphql" "$RULES"
bench_write_default_config "$BENCH_TMP/miss-default.yaml" "http://$NGX_ORIGIN/page"
TRACING=$(printf 'tracing:\n  otlp_endpoint: "http://%s/static"\n  sample_ratio: 1' "$NGX_ORIGIN")
bench_write_config "$BENCH_TMP/hit-traced.yaml" "$ORIGIN_URL" "$RULES"
printf '%s\n' "$TRACING" >>"$BENCH_TMP/hit-traced.yaml"
bench_write_config "$BENCH_TMP/miss-traced.yaml" "http://$NGX_ORIGIN/graphql" "$RULES"
printf '%s\n' "$TRACING" >>"$BENCH_TMP/miss-traced.yaml"
bench_write_config "$BENCH_TMP/hit-unsampled.yaml" "$ORIGIN_URL" "$RULES"
printf '%s\n' "${TRACING%1}0" >>"$BENCH_TMP/hit-unsampled.yaml"

# counted SCENARIO CONFIG METHOD TARGET [BODY|-] [HEADER...]: one scenario's figures.
counted() {
  local name=$1 config=$2 out="$BENCH_TMP/callgrind.$1.out" log="$BENCH_TMP/$1.log" pid line port
  shift 2
  # shellcheck disable=SC2086 # CALLGRIND_OPTIONS: extra valgrind options, split on spaces
  bench_start pid "$log" valgrind --tool=callgrind --instr-atstart=no ${CALLGRIND_OPTIONS:-} --callgrind-out-file="$out" \
    "$BREAKWATER" run --config "$config" --threads 1 --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --log-level warning
  line=$(bench_wait_line "$pid" "$log" 'breakwater: listening on http://' 120)
  port=$(bench_port_of "$line")
  python3 "$BENCH_DIR/fixed_requests.py" "127.0.0.1:$port" 1 POST /graphql "$BENCH_TMP/register.json"
  if [ "$1" = H2 ]; then
    # HTTP/2 with prior knowledge: one connection, 10 streams at a time (h2load, nghttp2-client).
    h2load -n 200 -c 1 -m 10 "http://127.0.0.1:$port$2" >/dev/null
    callgrind_control -i on "$pid" >/dev/null
    h2load -n "$REQUESTS" -c 1 -m 10 "http://127.0.0.1:$port$2" | grep -E '^status codes' >&2
  else
    python3 "$BENCH_DIR/fixed_requests.py" "127.0.0.1:$port" 200 "$@"
    callgrind_control -i on "$pid" >/dev/null
    # Other ids than the warm-up's: every counted miss is a request this process has not seen.
    FIXED_REQUESTS_FIRST_ID=$FIRST_ID python3 "$BENCH_DIR/fixed_requests.py" "127.0.0.1:$port" "$REQUESTS" "$@"
  fi
  callgrind_control -i off "$pid" >/dev/null
  # Stopped with SIGTERM, the proxy exits cleanly and callgrind writes what it collected.
  bench_stop "$pid"
  local dump=$out total
  total=$(awk '/^totals:/ {print $2; exit}' "$dump")
  [ -n "$total" ] || bench_die "no totals in $dump"
  printf '%-10s %12s instructions per request (%s requests)\n' "$name" "$((total / REQUESTS))" "$REQUESTS"
  if [ "$TOP" -gt 0 ]; then
    { callgrind_annotate --threshold=100 --inclusive="$INCLUSIVE" "$dump" 2>/dev/null || true; } | grep -E '^ *[0-9,]+ ' | sed -n "2,$((TOP + 1))p" \
      | awk -v n="$REQUESTS" '{ gsub(",", "", $1); $1 = sprintf("%8d", $1 / n); print }' || true
    echo
  fi
}

for scenario in $SCENARIOS; do
  case $scenario in
    hit-get) counted hit-get "$BENCH_TMP/hit.yaml" GET "$HIT_TARGET" - ;;
    hit-h2) counted hit-h2 "$BENCH_TMP/hit.yaml" H2 "$HIT_TARGET" ;;
    hit-post) counted hit-post "$BENCH_TMP/hit.yaml" POST /graphql "$BENCH_TMP/post-hit.json" ;;
    churn) FIXED_REQUESTS_CLOSE=1 counted churn "$BENCH_TMP/hit.yaml" GET "$HIT_TARGET" - ;;
    hit-gzip) counted hit-gzip "$BENCH_TMP/hit.yaml" POST /graphql "$BENCH_TMP/list.json" "Accept-Encoding: gzip" ;;
    miss) counted miss "$BENCH_TMP/miss.yaml" POST /graphql "$BENCH_TMP/live.json" ;;
    miss-default) counted miss-default "$BENCH_TMP/miss-default.yaml" POST /graphql "$BENCH_TMP/live.json" ;;
    hit-traced) counted hit-traced "$BENCH_TMP/hit-traced.yaml" GET "$HIT_TARGET" - ;;
    miss-traced) counted miss-traced "$BENCH_TMP/miss-traced.yaml" POST /graphql "$BENCH_TMP/live.json" ;;
    hit-unsampled) counted hit-unsampled "$BENCH_TMP/hit-unsampled.yaml" GET "$HIT_TARGET" - ;;
    *) bench_die "unknown scenario $scenario" ;;
  esac
done

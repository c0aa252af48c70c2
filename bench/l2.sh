#!/usr/bin/env bash
# The Redis shared tier's cost (docs/FLEET.md, README "Performance"): a local hit, an L2 (Redis) hit and an
# origin fetch side by side (req/s, p50, p99 with wrk), then the origin requests per key when a
# burst of misses is spread over three proxies sharing one Redis.
#
#   local hit   proxy A answers from its own memory (Redis is configured but not asked)
#   L2 hit      proxy B, whose local cache is too small to keep the entry, asks Redis every time
#   origin      proxy B with an operation that has no TTL rule: every request goes to the origin
#
# Everything runs on loopback: the demo origin (with test controls), one redis-server, the
# release binary. Results go to stdout and bench/results/l2-latest.md.
#
# Environment: BENCH_DURATION (default 5s), BENCH_CONNECTIONS (1), BENCH_BIN (skip the build),
# BENCH_BURST_KEYS (10 keys of 30 concurrent requests each).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${BENCH_DURATION:-5s}
# One connection by default: concurrent local misses for one key are coalesced into one Redis
# lookup, so only one request at a time makes every L2 request pay its own round trip.
CONNECTIONS=${BENCH_CONNECTIONS:-1}
BURST_KEYS=${BENCH_BURST_KEYS:-10}

bench_install_traps
bench_install_packages wrk curl jq redis-server
"$REPO_DIR/scripts/install-deps.sh"
bench_build

# --- processes --------------------------------------------------------------------------------

REDIS_PORT=$(bench_free_port)
bench_start REDIS_PID "$BENCH_TMP/redis.log" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' \
  --appendonly no --protected-mode no
bench_wait_line "$REDIS_PID" "$BENCH_TMP/redis.log" 'Ready to accept connections' >/dev/null

ORIGIN_LOG="$BENCH_TMP/origin.log"
bench_start ORIGIN_PID "$ORIGIN_LOG" "$BREAKWATER" demo --origin-only --test-controls --origin-listen 127.0.0.1:0 \
  --threads 1 --log-level warning
line=$(bench_wait_line "$ORIGIN_PID" "$ORIGIN_LOG" 'demo origin listening on http://')
ORIGIN_PORT=$(bench_port_of "$line")
ORIGIN="http://127.0.0.1:$ORIGIN_PORT/graphql"

config() { # file max_bytes
  cat >"$1" <<YAML
origin:
  url: "$ORIGIN"
logging:
  access_log: off   # as nginx runs here: the bench measures serving, not logging
persisted_queries:
  store: ""
cache:
  max_bytes: $2
  rules:
    - operation: GetLaunchDetail
      ttl: 10m
    - operation: Slow
      ttl: 10m
redis:
  url: "redis://127.0.0.1:$REDIS_PORT"
  key_prefix: "bench:"
  timeout: 50ms
YAML
}
config "$BENCH_TMP/a.yaml" 64MiB
# 1 KiB of cache: no entry fits, so every request of B is a local miss.
config "$BENCH_TMP/b.yaml" 1KiB
bench_start_breakwater a "$BENCH_TMP/a.yaml" 1 "" A_PID A_URL A_ADMIN
bench_start_breakwater b "$BENCH_TMP/b.yaml" 1 "" B_PID B_URL B_ADMIN

SELECTION='{ launch(id: $id) { id site isBooked mission { name missionPatch } rocket { id name type } } }'
DETAIL="query GetLaunchDetail(\$id: ID!) $SELECTION"
LIVE="query GetLaunchLive(\$id: ID!) $SELECTION"
VARIABLES='{"id":"60"}'

register() { # url document operation
  local body
  body=$(jq -cn --arg q "$2" --arg op "$3" --argjson v "$VARIABLES" --arg h "$(bench_hash "$2")" \
    '{query:$q, operationName:$op, variables:$v, extensions:{persistedQuery:{version:1, sha256Hash:$h}}}')
  curl -fsS -o /dev/null -H 'Content-Type: application/json' --data "$body" "$1"
}
hashed_path() { # document operation
  printf '/graphql?operationName=%s&variables=%s&extensions=%s' "$2" "$(bench_uri "$VARIABLES")" \
    "$(bench_uri "{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"$(bench_hash "$1")\"}}")"
}

register "$A_URL" "$DETAIL" GetLaunchDetail     # A fetches, stores locally and in Redis
register "$B_URL" "$DETAIL" GetLaunchDetail     # B: an L2 hit already
register "$B_URL" "$LIVE" GetLaunchLive
base() { sed -E 's#/graphql$##' <<<"$1"; }
xcache() { curl -fsS -o /dev/null -D - "$1" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-cache" {print $2}'; }
[ "$(xcache "$(base "$A_URL")$(hashed_path "$DETAIL" GetLaunchDetail)")" = "HIT" ] || bench_die "A does not hit"
[ "$(xcache "$(base "$B_URL")$(hashed_path "$DETAIL" GetLaunchDetail)")" = "HIT" ] || bench_die "B does not hit the L2"
[ "$(xcache "$(base "$B_URL")$(hashed_path "$LIVE" GetLaunchLive)")" = "BYPASS" ] || bench_die "live is not a bypass"

measure() { # name url
  local out="$BENCH_TMP/$1.wrk"
  wrk -t1 -c"$CONNECTIONS" -d1s "$2" >/dev/null 2>&1 || true
  wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency "$2" >"$out" 2>&1
  read -r rps p50 p99 errors < <(bench_parse_wrk "$out")
  printf '| %s | %s | %s | %s | %s |\n' "$1" "$rps" "$p50" "$p99" "$errors"
}

RESULTS="$REPO_DIR/bench/results/l2-latest.md"
mkdir -p "$(dirname "$RESULTS")"
{
  echo "# bench/l2.sh, $(date -u +%Y-%m-%dT%H:%MZ), wrk -t1 -c$CONNECTIONS -d$DURATION, one event loop per proxy, $(nproc) CPUs"
  echo
  echo "| path | req/s | p50 ms | p99 ms | errors |"
  echo "|---|---|---|---|---|"
  measure "local hit (proxy A's memory)" "$(base "$A_URL")$(hashed_path "$DETAIL" GetLaunchDetail)"
  measure "L2 hit (local miss, Redis GET)" "$(base "$B_URL")$(hashed_path "$DETAIL" GetLaunchDetail)"
  measure "origin fetch (no TTL rule)" "$(base "$B_URL")$(hashed_path "$LIVE" GetLaunchLive)"
  echo
  echo "L2 hits counted by B: $(curl -fsS "$B_ADMIN/stats" | jq -c '.redis | {l2_hits, l2_misses, errors, timeouts, latency_ms}')"
} | tee "$RESULTS"

# --- the burst over three proxies -----------------------------------------------------------------

bench_start_breakwater c "$BENCH_TMP/a.yaml" 1 "" C_PID C_URL C_ADMIN
PROXIES=("$A_URL" "$B_URL" "$C_URL")
before=$(curl -fsS "http://127.0.0.1:$ORIGIN_PORT/_demo/counters" | jq '.byOperation.Slow // 0')
for key in $(seq 1 "$BURST_KEYS"); do
  body=$(jq -cn --arg q "query Slow { slow(ms: $((200 + key))) }" '{query:$q}')
  clients=()
  for i in $(seq 0 29); do
    curl -fsS -o /dev/null -H 'Content-Type: application/json' --data "$body" "${PROXIES[$((i % 3))]}" &
    clients+=("$!")
  done
  # Only the clients: a bare `wait` would wait for the servers too.
  wait "${clients[@]}"
done
after=$(curl -fsS "http://127.0.0.1:$ORIGIN_PORT/_demo/counters" | jq '.byOperation.Slow // 0')
requests=$((after - before))
{
  echo
  echo "Burst: $BURST_KEYS keys x 30 concurrent misses spread over 3 proxies: $requests origin requests" \
    "($(jq -n "$requests / $BURST_KEYS") per key)"
} | tee -a "$RESULTS"

#!/usr/bin/env bash
# Purging the cache in front (docs/CDN.md, "Measured"): a real Varnish with xkey, running the
# VCL of deploy/varnish/breakwater.vcl, in front of Breakwater (cdn.targets: that Varnish, the
# default batch_window) in front of the demo origin, all on loopback.
#
#   purge latency   a mutation sent through Varnish -> the answer tagged with its entity gone
#                   from Varnish (the next GET through Varnish is a miss), p50/p99 over
#                   BENCH_MUTATIONS mutations (also from the mutation's answer, which the
#                   origin round trip does not count)
#   purge rate      purges per second through the admin endpoint and the purge calls they
#                   became with batching, beside the unbatched PURGE calls per second Varnish takes
#
# It measures latency, not throughput: run it alone, or beside other work for a rough figure.
# Results go to stdout and bench/results/cdn-latest.md.
#
# Environment: BENCH_MUTATIONS (default 200), BENCH_PURGES (20000), BENCH_BATCH_WINDOW (50ms),
# BENCH_BIN (skip the build).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MUTATIONS=${BENCH_MUTATIONS:-200}
PURGES=${BENCH_PURGES:-20000}
WINDOW=${BENCH_BATCH_WINDOW:-50ms}
RESULTS="$BENCH_DIR/results/cdn-latest.md"

bench_install_traps
bench_install_packages curl jq python3
"$REPO_DIR/scripts/install-deps.sh"
bench_build

bench_start_origin ORIGIN_PID ORIGIN

VARNISH_PORT=$(bench_free_port)
cat >"$BENCH_TMP/bench.yaml" <<YAML
origin:
  url: "$ORIGIN"
  schema: "off"
logging:
  access_log: off
persisted_queries:
  store: ""
cache:
  tag_header: xkey
  rules:
    - operation: GetLaunchDetail
      ttl: 10m
cdn:
  targets:
    - kind: varnish
      urls: ["http://127.0.0.1:$VARNISH_PORT/"]
  batch_window: $WINDOW
YAML
bench_start_breakwater proxy "$BENCH_TMP/bench.yaml" 1 "" PROXY_PID PROXY_URL PROXY_ADMIN
PROXY_PORT=$(bench_port_of "$PROXY_URL")

sed "s/\.port = \"8080\";/.port = \"$PROXY_PORT\";/" "$REPO_DIR/deploy/varnish/breakwater.vcl" >"$BENCH_TMP/breakwater.vcl"
bench_start VARNISH_PID "$BENCH_TMP/varnish.log" varnishd -F -n "$BENCH_TMP/varnish" -a "127.0.0.1:$VARNISH_PORT" \
  -f "$BENCH_TMP/breakwater.vcl" -s malloc,64m -T none -j none
for i in $(seq 1 100); do
  curl -s -o /dev/null -X BAN "http://127.0.0.1:$VARNISH_PORT/" && break
  bench_alive "$VARNISH_PID" || bench_die "varnishd did not start: $(cat "$BENCH_TMP/varnish.log")"
  sleep 0.1
done

DETAIL='query GetLaunchDetail($id: ID!) { launch(id: $id) { __typename id site } }'
HASH=$(bench_hash "$DETAIL")
IDS=20
for id in $(seq 1 "$IDS"); do
  body=$(jq -cn --arg q "$DETAIL" --arg id "$id" --arg h "$HASH" \
    '{query:$q, operationName:"GetLaunchDetail", variables:{id:$id}, extensions:{persistedQuery:{version:1, sha256Hash:$h}}}')
  curl -fsS -o /dev/null -H 'Content-Type: application/json' --data "$body" "$PROXY_URL"
done
GET_PATH="/graphql?operationName=GetLaunchDetail&variables=$(bench_uri '{"id":"LAUNCH_ID"}')&extensions=$(bench_uri "{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"$HASH\"}}")"
MUTATION='{"query":"mutation Book { bookTrips(launchIds: [\"LAUNCH_ID\"]) { success launches { __typename id } } }"}'

bench_log "purge latency: $MUTATIONS mutations through Varnish"
python3 "$BENCH_DIR/cdn_driver.py" latency "$VARNISH_PORT" "$GET_PATH" "$MUTATION" "$MUTATIONS" "$IDS" \
  >"$BENCH_TMP/latency.txt"

percentile() { # file column p
  awk -v c="$2" '{print $c}' "$1" | sort -n | awk -v p="$3" '{v[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; printf "%.1f", v[i]}'
}

bench_log "purge rate: $PURGES purges through the admin endpoint"
sent_before=$(curl -fsS "$PROXY_ADMIN/stats" | jq '.cdn.varnish.sent')
purge_seconds=$(python3 "$BENCH_DIR/cdn_driver.py" purges "$(bench_port_of "$PROXY_ADMIN")" "$PURGES" 4)
for i in $(seq 1 100); do
  [ "$(curl -fsS "$PROXY_ADMIN/stats" | jq '.cdn.varnish.queued')" = 0 ] && break
  sleep 0.1
done
stats=$(curl -fsS "$PROXY_ADMIN/stats" | jq -c '.cdn.varnish')
calls=$(($(jq '.sent' <<<"$stats") - sent_before))
varnish_seconds=$(python3 "$BENCH_DIR/cdn_driver.py" varnish "$VARNISH_PORT" 5000)

{
  echo "# Purging Varnish from Breakwater ($(date -u +%Y-%m-%dT%H:%MZ), batch_window $WINDOW)"
  echo
  echo "| measure | p50 | p99 |"
  echo "|---|---|---|"
  echo "| mutation sent -> its entity's answer gone from Varnish ($MUTATIONS mutations) | $(percentile "$BENCH_TMP/latency.txt" 1 50) ms | $(percentile "$BENCH_TMP/latency.txt" 1 99) ms |"
  echo "| mutation answered -> gone from Varnish | $(percentile "$BENCH_TMP/latency.txt" 2 50) ms | $(percentile "$BENCH_TMP/latency.txt" 2 99) ms |"
  echo
  echo "| purge rate | figure |"
  echo "|---|---|"
  echo "| purges through the admin endpoint (4 connections) | $(jq -n "$PURGES / $purge_seconds | floor") /s |"
  echo "| purge calls Varnish got for those $PURGES purges (batched) | $calls |"
  echo "| unbatched PURGE calls one Varnish absorbs (1 connection) | $(jq -n "5000 / $varnish_seconds | floor") /s |"
  echo
  echo "CDN figures after the run: $stats"
} | tee "$RESULTS"

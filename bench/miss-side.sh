#!/usr/bin/env bash
# `make bench-miss-side`: row (f) (misses, distinct variables, TTL 0, the nginx `return 200`
# origin) with Breakwater and nginx proxy_pass SIDE BY SIDE: per round a new Breakwater (one
# loop) and a new nginx (one worker, keep-alive upstreams, as bench/run.sh configures it), both
# pinned to CPU 0, each driven at the same time by its own `wrk -t1 -c50` on CPU 1 for the same
# seconds. Saturated (the default), both share CPU 0 and the req/s ratio is the throughput ratio
# at an equal share of the CPU; paced (MISS_DELAY_MS), both serve the same rate and the ratio of
# CPU time per request (from /proc) says the same thing below saturation.
#
# Why: bench/run.sh measures the two one after the other, and a process's speed on this shared
# VM holds for its life and differs between processes by up to 30 % (BENCHMARKS.md, "The machine
# and the layout"): its (f) ratio ranged 0.71-1.10 for one binary. Side by side, a
# slow spell of the host hits both at once, and new processes every round sample the placement.
#   MISS_ROUNDS=10  MISS_SECONDS=4  MISS_DELAY_MS=N (wrk's delay(): each connection waits N ms)
#   BENCH_BIN=PATH (else .build/release/breakwater is built)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=${MISS_ROUNDS:-10}
SECONDS_PER_RUN=${MISS_SECONDS:-4}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || bench_die "MISS_ROUNDS must be a positive integer"
[[ "$SECONDS_PER_RUN" =~ ^[1-9][0-9]*$ ]] || bench_die "MISS_SECONDS must be a positive integer"

bench_install_traps
bench_install_all
bench_build
NGINX=$(bench_nginx_bin)
start_origin_nginx NGX_ORIGIN

LIVE='query GetLaunchLive($id: ID!) { launch(id: $id) { id site } }'
jq -cn --arg q "$LIVE" '{query: $q, operationName: "GetLaunchLive", variables: {id: "@ID@"}}' >"$BENCH_TMP/live.json"
bench_write_config "$BENCH_TMP/miss.yaml" "http://$NGX_ORIGIN/graphql" \
  "$(printf '  rules:\n    - operation: GetLaunchLive\n      ttl: 0s')"
LUA=$BENCH_TMP/distinct.lua
cp "$BENCH_DIR/lua/distinct.lua" "$LUA"
if [ -n "${MISS_DELAY_MS:-}" ]; then
  [[ "$MISS_DELAY_MS" =~ ^[1-9][0-9]*$ ]] || bench_die "MISS_DELAY_MS must be a positive integer"
  echo "function delay() return $MISS_DELAY_MS end" >>"$LUA"
fi


# start_nginx ROUND: a new nginx proxy_pass on CPU 0; sets NGX_MASTER, NGX_WORKER, NGX_URL.
start_nginx() {
  local dir="$BENCH_TMP/nginx-$1" port
  port=$(bench_free_port)
  mkdir -p "$dir"/{client_body,proxy_temp,fastcgi,uwsgi,scgi}
  { echo "worker_processes 1;"; [ "$(id -u)" -eq 0 ] && echo "user root;"; nginx_preamble "$dir"; cat <<EOF
    upstream nginx_origin { server $NGX_ORIGIN; keepalive 128; keepalive_requests 1000000; }
    server {
        listen 127.0.0.1:$port;
        location = /pass {
            proxy_pass http://nginx_origin/graphql;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
EOF
  } >"$dir/nginx.conf"
  bench_start NGX_MASTER "$dir/out.log" taskset -c 0 "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g "daemon off;"
  for _ in $(seq 1 50); do pgrep -P "$NGX_MASTER" >/dev/null && break; sleep 0.1; done
  NGX_WORKER=$(pgrep -P "$NGX_MASTER" | head -1)
  [ -n "$NGX_WORKER" ] || bench_die "nginx started no worker"
  NGX_URL="http://127.0.0.1:$port/pass"
}

echo "== (f) misses side by side, both on CPU 0: $ROUNDS rounds of ${SECONDS_PER_RUN}s, wrk -t1 -c50 each on CPU 1${MISS_DELAY_MS:+, paced at one request per $MISS_DELAY_MS ms per connection}; load $(cut -d' ' -f1-3 /proc/loadavg)"
RPS_RATIOS="" CPU_RATIOS=""
for round in $(seq 1 "$ROUNDS"); do
  # Which starts first alternates by round.
  if [ $((round % 2)) = 1 ]; then
    start_nginx "$round"
    bench_start_breakwater "miss-$round" "$BENCH_TMP/miss.yaml" 1 0 BW_PID BW_URL BW_ADMIN
  else
    bench_start_breakwater "miss-$round" "$BENCH_TMP/miss.yaml" 1 0 BW_PID BW_URL BW_ADMIN
    start_nginx "$round"
  fi
  # Warm both (pooled upstream connections, first-touch pages), then measure both at once.
  for url in "$BW_URL" "$NGX_URL"; do
    taskset -c 1 wrk -t1 -c8 -d1s -s "$BENCH_DIR/lua/distinct.lua" "$url" -- "$BENCH_TMP/live.json" 0 1 >/dev/null
  done
  bw_before=$(bench_cpu_ticks "$BW_PID") ngx_before=$(bench_cpu_ticks "$NGX_WORKER")
  taskset -c 1 wrk -t1 -c50 -d"${SECONDS_PER_RUN}s" --latency -s "$LUA" "$BW_URL" -- "$BENCH_TMP/live.json" 0 1 \
    >"$BENCH_TMP/wrk-bw.txt" &
  wrk_bw=$!
  taskset -c 1 wrk -t1 -c50 -d"${SECONDS_PER_RUN}s" --latency -s "$LUA" "$NGX_URL" -- "$BENCH_TMP/live.json" 0 1 \
    >"$BENCH_TMP/wrk-ngx.txt" &
  wrk_ngx=$!
  wait "$wrk_bw" "$wrk_ngx"
  bw_after=$(bench_cpu_ticks "$BW_PID") ngx_after=$(bench_cpu_ticks "$NGX_WORKER")
  read -r bw_rps bw_p50 bw_p99 bw_errors < <(bench_parse_wrk "$BENCH_TMP/wrk-bw.txt")
  read -r ngx_rps ngx_p50 ngx_p99 ngx_errors < <(bench_parse_wrk "$BENCH_TMP/wrk-ngx.txt")
  [ "$bw_errors" = 0 ] && [ "$ngx_errors" = 0 ] || bench_die "errors in round $round: breakwater $bw_errors, nginx $ngx_errors"
  bw_cpu=$(bench_cpu_per_request $((bw_after - bw_before)) "$BENCH_TMP/wrk-bw.txt")
  ngx_cpu=$(bench_cpu_per_request $((ngx_after - ngx_before)) "$BENCH_TMP/wrk-ngx.txt")
  rps_ratio=$(awk -v a="$bw_rps" -v b="$ngx_rps" 'BEGIN { printf "%.3f", a / b }')
  cpu_ratio=$(awk -v a="$bw_cpu" -v b="$ngx_cpu" 'BEGIN { printf "%.3f", b / a }')
  RPS_RATIOS+=" $rps_ratio" CPU_RATIOS+=" $cpu_ratio"
  printf 'round %2d  breakwater %6s req/s %6s us/req p50 %s p99 %s | nginx %6s req/s %6s us/req p50 %s p99 %s | req/s ratio %s, nginx/breakwater CPU per request %s\n' \
    "$round" "$bw_rps" "$bw_cpu" "$bw_p50" "$bw_p99" "$ngx_rps" "$ngx_cpu" "$ngx_p50" "$ngx_p99" "$rps_ratio" "$cpu_ratio"
  bench_stop "$BW_PID"
  bench_stop "$NGX_MASTER"
done
echo "median over $ROUNDS rounds: breakwater/nginx req/s $(bench_median "$RPS_RATIOS") (rounds:$RPS_RATIOS); nginx/breakwater CPU per request $(bench_median "$CPU_RATIOS") (rounds:$CPU_RATIOS); >= 1.0 meets the target of README "Performance""

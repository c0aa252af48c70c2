#!/usr/bin/env bash
# `make bench-tls`: which TLS transport on libevent is faster: OpenSSL directly on
# the non-blocking socket (what Breakwater's engine does) or libevent's bufferevent_openssl. Both
# run in bench/tls/transport.c, the same tiny server answering every keep-alive request with the
# same 905-byte answer, so the figures compare the transports and nothing else. For context, the
# same hashed-GET hit from Breakwater's own TLS listener (one loop) is measured too.
# Layout: server on CPU 0, `wrk -t1 -c50` over https on CPU 1; TLS_RUNS (3) alternating runs of
# TLS_SECONDS (5) each; the median run per server is printed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
RUNS=${TLS_RUNS:-3}
SECONDS_PER_RUN=${TLS_SECONDS:-5}

bench_install_traps
bench_install_packages libevent-dev libssl-dev pkg-config gcc openssl wrk curl jq util-linux
bench_build
cc -O2 -Wall -Wextra -o "$BENCH_TMP/transport" "$BENCH_DIR/tls/transport.c" \
  $(pkg-config --cflags --libs libevent_openssl libevent openssl)
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
  -keyout "$BENCH_TMP/key.pem" -out "$BENCH_TMP/cert.pem" 2>/dev/null

start_transport() { # MODE VAR_PID VAR_PORT
  local port pid
  port=$(bench_free_port)
  bench_start pid "$BENCH_TMP/$1.log" taskset -c 0 "$BENCH_TMP/transport" "$1" "$port" "$BENCH_TMP/cert.pem" "$BENCH_TMP/key.pem"
  bench_wait_line "$pid" "$BENCH_TMP/$1.log" 'listening on' >/dev/null
  printf -v "$2" '%s' "$pid"
  printf -v "$3" '%s' "$port"
}
start_transport direct DIRECT_PID DIRECT_PORT
start_transport bufferevent BEV_PID BEV_PORT

# Breakwater: one loop with TLS, the GetLaunchDetail hit of bench/run.sh's row (a).
bench_start_origin ORIGIN_PID ORIGIN_URL
cat >"$BENCH_TMP/tls.yaml" <<YAML
server:
  listen: "127.0.0.1:0"
  tls:
    cert: $BENCH_TMP/cert.pem
    key: $BENCH_TMP/key.pem
origin:
  url: "$ORIGIN_URL"
logging:
  access_log: off
persisted_queries:
  mode: automatic
  store: ""
cache:
  rules:
    - operation: GetLaunchDetail
      ttl: 1h
YAML
bench_start BW_PID "$BENCH_TMP/bw.log" taskset -c 0 "$BREAKWATER" run --config "$BENCH_TMP/tls.yaml" --threads 1 \
  --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --log-level warning
BW_LINE=$(bench_wait_line "$BW_PID" "$BENCH_TMP/bw.log" 'breakwater: listening on https://')
BW_PORT=$(sed -E 's#.*https://[^:]+:([0-9]+)/.*#\1#' <<<"$BW_LINE")
DOCUMENT='query GetLaunchDetail($id: ID!) { launch(id: $id) { id site isBooked mission { name missionPatch } rocket { id name type } } }'
HASH=$(bench_hash "$DOCUMENT")
EXTENSIONS=$(printf '{"persistedQuery":{"version":1,"sha256Hash":"%s"}}' "$HASH")
curl -skf -o /dev/null "https://127.0.0.1:$BW_PORT/graphql" -H 'Content-Type: application/json' --data-binary \
  "$(jq -cn --arg q "$DOCUMENT" --argjson e "$EXTENSIONS" '{query: $q, operationName: "GetLaunchDetail", variables: {id: "60"}, extensions: $e}')" \
  || bench_die "registering the document over TLS failed"
HIT_TARGET="/graphql?operationName=GetLaunchDetail&variables=$(bench_uri '{"id":"60"}')&extensions=$(bench_uri "$EXTENSIONS")"
[ "$(curl -sk -o /dev/null -D - "https://127.0.0.1:$BW_PORT$HIT_TARGET" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-cache"{print $2}')" = HIT ] \
  || bench_die "Breakwater does not answer the hashed GET from cache over TLS"
for url in "https://127.0.0.1:$DIRECT_PORT/" "https://127.0.0.1:$BEV_PORT/" "https://127.0.0.1:$BW_PORT$HIT_TARGET"; do
  taskset -c 1 wrk -t1 -c50 -d1s "$url" >/dev/null
done

declare -A RESULTS=()
for run in $(seq 1 "$RUNS"); do
  for name in direct bufferevent breakwater; do
    case $name in
      direct) url="https://127.0.0.1:$DIRECT_PORT/" ;;
      bufferevent) url="https://127.0.0.1:$BEV_PORT/" ;;
      breakwater) url="https://127.0.0.1:$BW_PORT$HIT_TARGET" ;;
    esac
    out="$BENCH_TMP/wrk-$name-$run.txt"
    taskset -c 1 wrk -t1 -c50 -d"${SECONDS_PER_RUN}s" --latency "$url" >"$out" 2>&1
    figures=$(bench_parse_wrk "$out")
    RESULTS[$name]+="$figures;"
    bench_log "  $name run $run: $figures (req/s p50_ms p99_ms errors) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done

median() { tr ';' '\n' <<<"${RESULTS[$1]}" | sed '/^$/d' | sort -n -k1,1 | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }
DIRECT=$(median direct)
BEV=$(median bufferevent)
BW=$(median breakwater)
echo
echo "| transport (TLS, wrk -t1 -c50, server on CPU 0) | req/s | p50 | p99 | vs bufferevent_openssl |"
echo "|---|---:|---:|---:|---:|"
for row in "OpenSSL on the socket (direct)|$DIRECT" "bufferevent_openssl|$BEV" "Breakwater hashed-GET hit (direct, whole proxy)|$BW"; do
  label=${row%%|*}
  read -r rps p50 p99 _ <<<"${row#*|}"
  ratio=$(awk -v a="$rps" -v b="${BEV%% *}" 'BEGIN { printf "%.2f", a / b }')
  echo "| $label | $rps | $p50 ms | $p99 ms | $ratio |"
done
echo
echo "$RUNS run(s) of ${SECONDS_PER_RUN}s each, median by req/s; load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"

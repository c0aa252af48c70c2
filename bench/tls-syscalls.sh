#!/usr/bin/env bash
# System calls per request over TLS: Breakwater's hashed-GET hit (one loop, CPU 0) and nginx's
# `ssl` + `return 200` of a body of the same size (one worker, CPU 0), each under `wrk -t1 -c50`
# on CPU 1; `perf stat` counts the server's reads, writes and epoll_waits over 4 s of the run.
#   BENCH_BIN=PATH   this binary instead of building .build/release/breakwater
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$BENCH_DIR/lib.sh"
bench_install_traps
bench_install_all
bench_install_packages linux-perf
bench_build
command -v perf >/dev/null || bench_die "perf is not installed"
NGINX=$(bench_nginx_bin)

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$BENCH_TMP/key.pem" -out "$BENCH_TMP/cert.pem" 2>/dev/null \
  || bench_die "openssl could not make a certificate"
bench_start_origin ORIGIN_PID ORIGIN_URL
bench_write_config "$BENCH_TMP/plain.yaml" "$ORIGIN_URL" "$(printf '  rules:\n    - operation: GetLaunchDetail\n      ttl: 1h')"
sed "s#^server:#server:\n  tls:\n    cert: $BENCH_TMP/cert.pem\n    key: $BENCH_TMP/key.pem#" "$BENCH_TMP/plain.yaml" >"$BENCH_TMP/tls.yaml"
bench_start_breakwater breakwater "$BENCH_TMP/tls.yaml" 1 0 BW_PID BW_URL BW_ADMIN

DOCUMENT='query GetLaunchDetail($id: ID!) { launch(id: $id) { id site isBooked mission { name missionPatch } rocket { id name type } } }'
EXTENSIONS=$(printf '{"persistedQuery":{"version":1,"sha256Hash":"%s"}}' "$(bench_hash "$DOCUMENT")")
curl -skf -o "$BENCH_TMP/body.json" "$BW_URL" -H 'Content-Type: application/json' --data-binary \
  "$(jq -cn --arg q "$DOCUMENT" --argjson e "$EXTENSIONS" '{query: $q, operationName: "GetLaunchDetail", variables: {id: "60"}, extensions: $e}')" \
  || bench_die "Breakwater did not answer the registration over TLS"
HIT="$BW_URL?operationName=GetLaunchDetail&variables=$(bench_uri '{"id":"60"}')&extensions=$(bench_uri "$EXTENSIONS")"

dir="$BENCH_TMP/nginx"
mkdir -p "$dir"/{client_body,proxy_temp,fastcgi,uwsgi,scgi}
port=$(bench_free_port)
{
  echo "worker_processes 1; worker_cpu_affinity 01;"
  [ "$(id -u)" -eq 0 ] && echo "user root;"
  nginx_preamble "$dir"
  cat <<EOF
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $BENCH_TMP/cert.pem;
        ssl_certificate_key $BENCH_TMP/key.pem;
        location = /static { default_type application/json; return 200 '$(bench_nginx_return_text "$BENCH_TMP/body.json")'; }
    }
}
EOF
} >"$dir/nginx.conf"
bench_start NGINX_PID "$dir/out.log" "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g "daemon off;"
curl -skf -o /dev/null --retry 20 --retry-connrefused --retry-delay 0 "https://127.0.0.1:$port/static" \
  || bench_die "nginx did not answer over TLS"
NGINX_WORKER=$(pgrep -P "$NGINX_PID" -f "worker process" | head -1)

EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_epoll_wait
# counted NAME PID URL: wrk for 6 s; perf stat over 4 s of it; each count divided by the requests
# of those 4 s (wrk's rate times 4).
counted() {
  taskset -c 1 wrk -t1 -c50 -d6s "$3" >"$BENCH_TMP/wrk.txt" &
  local wrk=$! rate
  sleep 1
  perf stat -e "$EVENTS" -p "$2" -x, -o "$BENCH_TMP/perf.txt" -- sleep 4
  wait "$wrk"
  rate=$(bench_parse_wrk "$BENCH_TMP/wrk.txt" | awk '{ print $1 }')
  echo "== $1: $rate req/s"
  awk -F, -v n="$rate" '/^[0-9]/ { printf "  %-32s %6.2f per request\n", $3, $1 / (n * 4) }' "$BENCH_TMP/perf.txt"
}
counted "Breakwater, hashed-GET hit over TLS" "$BW_PID" "$HIT"
counted "nginx ssl, return 200" "$NGINX_WORKER" "https://127.0.0.1:$port/static"

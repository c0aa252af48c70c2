#!/usr/bin/env bash
# Syscalls per miss: `strace -f -c` over N misses (TTL 0, distinct variables, one keep-alive client
# connection, the nginx `return 200` origin) through Breakwater (one loop) and through nginx
# proxy_pass with keep-alive upstreams, configured as bench/run.sh row (f). Counts include start-up.
#   BENCH_BIN=PATH (required)  N=500  OUT=directory for the two strace summaries (default: a temp dir)
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$BENCH_DIR/lib.sh"
N=${N:-500}
BREAKWATER=${BENCH_BIN:?}
bench_install_traps
OUT=${OUT:-$(mktemp -d)}
NGINX=$(bench_nginx_bin)
start_origin_nginx NGX_ORIGIN
LIVE='query GetLaunchLive($id: ID!) { launch(id: $id) { id site } }'
jq -cn --arg q "$LIVE" '{query: $q, operationName: "GetLaunchLive", variables: {id: "@ID@"}}' >"$BENCH_TMP/live.json"
bench_write_config "$BENCH_TMP/miss.yaml" "http://$NGX_ORIGIN/graphql" "$(printf '  rules:\n    - operation: GetLaunchLive\n      ttl: 0s')"
bench_start pid "$BENCH_TMP/bw.log" strace -f -c -o "$OUT/bw.strace" "$BREAKWATER" run --config "$BENCH_TMP/miss.yaml" --threads 1 --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --log-level warning
line=$(bench_wait_line "$pid" "$BENCH_TMP/bw.log" 'breakwater: listening on http://' 60)
port=$(bench_port_of "$line")
python3 "$BENCH_DIR/fixed_requests.py" "127.0.0.1:$port" "$N" POST /graphql "$BENCH_TMP/live.json"
kill -TERM "$(pgrep -P "$pid")"; sleep 2
echo "== breakwater, $N misses (whole process incl. start-up)"; cat "$OUT/bw.strace" | head -30
# nginx proxy_pass
dir="$BENCH_TMP/ngx"; mkdir -p "$dir"/{client_body,proxy_temp,fastcgi,uwsgi,scgi}
nport=$(bench_free_port)
{ echo "worker_processes 1;"; [ "$(id -u)" -eq 0 ] && echo "user root;"; nginx_preamble "$dir"; cat <<EOF
    upstream nginx_origin { server $NGX_ORIGIN; keepalive 128; keepalive_requests 1000000; }
    server { listen 127.0.0.1:$nport;
        location = /pass { proxy_pass http://nginx_origin/graphql; proxy_http_version 1.1; proxy_set_header Connection ""; } }
}
EOF
} >"$dir/nginx.conf"
bench_start npid "$dir/out.log" strace -f -c -o "$OUT/ngx.strace" "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g "daemon off;"
sleep 2
python3 "$BENCH_DIR/fixed_requests.py" "127.0.0.1:$nport" "$N" POST /pass "$BENCH_TMP/live.json"
kill -QUIT "$(pgrep -P "$npid" | head -1)"; sleep 2
echo "== nginx proxy_pass, $N misses (master + worker incl. start-up)"; head -30 "$OUT/ngx.strace"

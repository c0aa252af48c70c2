#!/usr/bin/env bash
# `make bench`: Breakwater against nginx proxy_cache, side by side, in one run (README "Performance").
#
# Starts the demo origin, Breakwater and nginx (as an equivalent proxy_cache) on loopback,
# checks that both serve the same body bytes, then runs each scenario with wrk, interleaved
# (breakwater, nginx, breakwater, nginx, ...), and prints the median run of each as one table,
# also written to bench/results/latest.md. Then bench/memory.sh (unless BENCH_SKIP_MEMORY=1).
#
# Environment:
#   BENCH_DURATION=10s   length of each measured wrk run
#   BENCH_RUNS=3         runs per scenario and server (the median by req/s is reported)
#   BENCH_QUICK=1        smoke test: 2s, 1 run
#   BENCH_ROWS="e f"     measure only these rows (letters, or "ceiling"); the table leaves the others out
#   BENCH_SKIP_MEMORY=1  skip bench/memory.sh
#   BENCH_CHURN_SECONDS  passed on to bench/memory.sh (default 120)
#   BENCH_BIN=PATH       bench this binary instead of building .build/release/breakwater
#   BENCH_KEEP_TMP=1     keep the temp dir (configs, logs, raw wrk output)
#   BENCH_RESULT_MD=PATH write the Markdown table there instead of bench/results/latest.md
#
# Layout: CPU 0 runs the server under test (Breakwater's single loop via taskset, nginx's single
# worker via worker_cpu_affinity), CPU 1 runs wrk; scenario (e) is unpinned on both sides.
# Rows (m) and (n) are over TLS with one certificate for both servers: HTTP/1.1 with wrk, and
# HTTP/2 (ALPN h2) with h2load, 50 connections x 10 streams.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${BENCH_DURATION:-10s}
RUNS=${BENCH_RUNS:-3}
WARM_DURATION=1s
if [ "${BENCH_QUICK:-0}" = "1" ]; then
  DURATION=2s
  RUNS=1
fi
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || bench_die "BENCH_RUNS must be a positive integer"

bench_install_traps
# (i) opens 1,000 connections to each server.
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true
bench_install_all
bench_install_packages nghttp2-client
bench_build
NGINX=$(bench_nginx_bin)
[ "$(nproc)" -ge 2 ] || bench_log "warning: fewer than 2 CPUs; the pinned layout (server CPU 0, wrk CPU 1) overlaps"

# --- the documents ----------------------------------------------------------------------------

# About 1 KiB of JSON: one launch in full, plus the next three launches.
SELECTION='{ launch(id: $id) { id site isBooked mission { name small: missionPatch(size: SMALL) large: missionPatch(size: LARGE) } rocket { id name type } } upcoming: launches(pageSize: 3) { cursor hasMore launches { id site mission { name missionPatch } rocket { id name type } } } }'
DETAIL="query GetLaunchDetail(\$id: ID!) $SELECTION"
# The same selection under an operation with TTL 0: every request goes to the origin (BYPASS).
LIVE="query GetLaunchLive(\$id: ID!) $SELECTION"
DETAIL_HASH=$(bench_hash "$DETAIL")
HIT_VARIABLES='{"id":"60"}'
POST_VARIABLES='{"id":"42"}'

apq_extensions() { printf '{"persistedQuery":{"version":1,"sha256Hash":"%s"}}' "$1"; }
# Path of a hashed GET (what Apollo clients send once the document is registered).
hashed_get_path() { # operation variables hash
  printf '/graphql?operationName=%s&variables=%s&extensions=%s' \
    "$1" "$(bench_uri "$2")" "$(bench_uri "$(apq_extensions "$3")")"
}
# Path of a GET with the full query (what nginx, which has no APQ, gets instead).
full_get_path() { # operation variables query
  printf '/graphql?query=%s&operationName=%s&variables=%s' "$(bench_uri "$3")" "$1" "$(bench_uri "$2")"
}
post_body() { # query operation variables [hash]
  if [ -n "${4:-}" ]; then
    jq -cn --arg q "$1" --arg o "$2" --argjson v "$3" --argjson e "$(apq_extensions "$4")" \
      '{query: $q, operationName: $o, variables: $v, extensions: $e}'
  else
    jq -cn --arg q "$1" --arg o "$2" --argjson v "$3" '{query: $q, operationName: $o, variables: $v}'
  fi
}

BW_HIT_PATH=$(hashed_get_path GetLaunchDetail "$HIT_VARIABLES" "$DETAIL_HASH")
NGINX_HIT_PATH=$(full_get_path GetLaunchDetail "$HIT_VARIABLES" "$DETAIL")
# The ceiling's request: (a)'s hashed GET with /static for /graphql (nginx's exact-match location
# ignores the query), so both servers read requests of the same bytes and only the answering differs.
CEILING_PATH="/static${BW_HIT_PATH#/graphql}"
post_body "$DETAIL" GetLaunchDetail "$POST_VARIABLES" >"$BENCH_TMP/post-hit.json"
post_body "$LIVE" GetLaunchLive "$HIT_VARIABLES" >"$BENCH_TMP/post-live.json"

# --- the servers ------------------------------------------------------------------------------

bench_start_origin ORIGIN_PID ORIGIN_URL
ORIGIN_HOSTPORT=${ORIGIN_URL#http://}
ORIGIN_HOSTPORT=${ORIGIN_HOSTPORT%%/*}
ORIGIN_BASE="http://$ORIGIN_HOSTPORT"
bench_log "demo origin at $ORIGIN_URL"

# The body every hit scenario serves, straight from the origin.
curl -sf -o "$BENCH_TMP/body.json" "$ORIGIN_BASE$NGINX_HIT_PATH" || bench_die "the origin does not answer the GET"
BODY_BYTES=$(wc -c <"$BENCH_TMP/body.json")
grep -q '"errors"' "$BENCH_TMP/body.json" && bench_die "the origin answered with errors: $(cat "$BENCH_TMP/body.json")"

cat >"$BENCH_TMP/bench-config.yaml" <<EOF
server:
  listen: "127.0.0.1:0"
origin:
  url: "$ORIGIN_URL"
logging:
  access_log: off   # as nginx runs here: the bench measures serving, not logging
persisted_queries:
  mode: automatic
  store: ""
cache:
  max_bytes: 1GiB
  rules:
    - operation: GetLaunches
      ttl: 1h
    - operation: GetLaunchDetail
      ttl: 1h
    - operation: GetLaunchLive
      ttl: 0s
EOF
"$BREAKWATER" validate --config "$BENCH_TMP/bench-config.yaml" >"$BENCH_TMP/validate.log" 2>&1 \
  || { cat "$BENCH_TMP/validate.log" >&2; bench_die "bench-config.yaml does not validate"; }

bench_start_breakwater breakwater1 "$BENCH_TMP/bench-config.yaml" 1 0 BW1_PID BW1_URL BW1_ADMIN
# (m), (n): the same configuration terminating TLS, with the certificate nginx gets too.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
  -keyout "$BENCH_TMP/key.pem" -out "$BENCH_TMP/cert.pem" 2>/dev/null || bench_die "openssl could not make a certificate"
sed "s#^server:#server:\n  tls:\n    cert: $BENCH_TMP/cert.pem\n    key: $BENCH_TMP/key.pem#" "$BENCH_TMP/bench-config.yaml" \
  >"$BENCH_TMP/bench-tls.yaml"
bench_start_breakwater breakwater7 "$BENCH_TMP/bench-tls.yaml" 1 0 BW7_PID BW7_URL BW7_ADMIN
bench_start_breakwater breakwater2 "$BENCH_TMP/bench-config.yaml" 2 "" BW2_PID BW2_URL BW2_ADMIN
bench_log "breakwater (1 loop, CPU 0) at $BW1_URL; (2 loops, unpinned) at $BW2_URL"

# --- an nginx origin answering every request at once (the miss row (f) and the 100 KB row (j)) ---

BIG_BODY="$BENCH_TMP/big.json"
python3 -c 'import sys; sys.stdout.write("{\"data\":{\"big\":\"" + "x" * (100 * 1024) + "\"}}")' >"$BIG_BODY"
# (k): a 4 KiB answer of twenty launches, as JSON compresses in practice (not a run of one byte).
python3 -c '
import json, sys
launches = [{"id": str(i), "site": ["CCAFS SLC 40", "KSC LC 39A", "VAFB SLC 4E"][i % 3],
             "mission": {"name": "Mission %d" % i, "missionPatch": "https://images2.imgbox.com/patch-%d.png" % i},
             "rocket": {"id": "falcon9", "name": "Falcon 9", "type": ["v1.0", "FT", "Block 5"][i % 3]}}
            for i in range(1, 21)]
sys.stdout.write(json.dumps({"data": {"launches": launches}}, separators=(",", ":")))' >"$BENCH_TMP/medium.json"
# (l): the 1 KiB answer of the untuned miss setup, from the origin's /page.
bench_write_page "$BENCH_TMP/page.json"
start_origin_nginx NGX_ORIGIN
bench_log "nginx origin (return 200) at $NGX_ORIGIN"

for origin_path in graphql big medium; do
  bench_write_config "$BENCH_TMP/bench-$origin_path.yaml" "http://$NGX_ORIGIN/$origin_path" \
    "$(printf '  max_bytes: 1GiB\n  rules:\n    - operation: GetBig\n      ttl: 1h\n    - operation: GetLaunchLive\n      ttl: 0s')"
done
bench_start_breakwater breakwater3 "$BENCH_TMP/bench-graphql.yaml" 1 0 BW3_PID BW3_URL BW3_ADMIN
bench_start_breakwater breakwater4 "$BENCH_TMP/bench-big.yaml" 1 0 BW4_PID BW4_URL BW4_ADMIN
bench_start_breakwater breakwater5 "$BENCH_TMP/bench-medium.yaml" 1 0 BW5_PID BW5_URL BW5_ADMIN
# (l): Breakwater's default configuration (`origin.schema: auto`, `default_ttl: 0s`, no rules).
bench_write_default_config "$BENCH_TMP/bench-default.yaml" "http://$NGX_ORIGIN/page"
bench_start_breakwater breakwater6 "$BENCH_TMP/bench-default.yaml" 1 0 BW6_PID BW6_URL BW6_ADMIN
jq -cn --arg q "$LIVE" '{query: $q, operationName: "GetLaunchLive", variables: {id: "@ID@"}}' >"$BENCH_TMP/live-template.json"
jq -cn '{query: "query GetBig { big }", operationName: "GetBig"}' >"$BENCH_TMP/big-post.json"

STATIC_TEXT=$(bench_nginx_return_text "$BENCH_TMP/body.json")

# The proxy_cache directives of every cached location (the same key and rules for each).
NGINX_CACHE_DIRECTIVES='proxy_cache graphql;
            proxy_cache_methods GET HEAD POST;
            proxy_cache_key "$request_method$request_uri$request_body";
            proxy_cache_valid 200 1h;
            proxy_ignore_headers Cache-Control Expires Set-Cookie;
            add_header X-Cache $upstream_cache_status;'
# The cached GraphQL endpoint of (a), (b), (d)-(i) and, over TLS, (m) and (n).
NGINX_GRAPHQL_LOCATION="location = /graphql {
            client_body_buffer_size 64k;
            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_buffering on;
            $NGINX_CACHE_DIRECTIVES
        }"

# write_nginx_conf DIR PORT WORKERS AFFINITY(or "") [TLS_PORT]
write_nginx_conf() {
  local dir=$1 port=$2 workers=$3 affinity=$4 tls_port=${5:-}
  mkdir -p "$dir/cache" "$dir/client_body" "$dir/proxy_temp" "$dir/fastcgi" "$dir/uwsgi" "$dir/scgi"
  {
    echo "worker_processes $workers;"
    [ -n "$affinity" ] && echo "worker_cpu_affinity $affinity;"
    # As root, nginx would switch its workers to nobody, who cannot write our temp dir.
    [ "$(id -u)" -eq 0 ] && echo "user root;"
    nginx_preamble "$dir"
    cat <<EOF
    keepalive_timeout 65s;

    # Idle upstream connections kept per worker: at least as many as the rows' client connections
    # (64 at most for a miss row), as a careful operator would set it. With fewer, nginx opens and
    # closes origin connections under load and its misses slow down for that alone.
    upstream origin {
        server $ORIGIN_HOSTPORT;
        keepalive 128;
        keepalive_requests 1000000;
    }
    upstream nginx_origin {
        server $NGX_ORIGIN;
        keepalive 128;
        keepalive_requests 1000000;
    }
    proxy_cache_path $dir/cache levels=1:2 keys_zone=graphql:16m max_size=1g inactive=1h use_temp_path=off;
    geo \$dollar { default "\$"; }

    server {
        listen 127.0.0.1:$port;

        $NGINX_GRAPHQL_LOCATION

        # (f): plain proxy_pass with keep-alive upstream connections, nothing cached.
        location = /pass {
            proxy_pass http://nginx_origin/graphql;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }

        # (l): plain proxy_pass of the origin's 1 KiB /page, keep-alive upstream connections.
        location = /pass-page {
            proxy_pass http://nginx_origin/page;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }

        # (j): the 100 KB answer from proxy_cache.
        location = /big {
            client_body_buffer_size 64k;
            proxy_pass http://nginx_origin/big;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            $NGINX_CACHE_DIRECTIVES
        }

        # (k): the 4 KiB answer from proxy_cache, gzipped for clients that accept it (nginx
        # compresses on every hit; Breakwater once per entry).
        location = /medium {
            client_body_buffer_size 64k;
            proxy_pass http://nginx_origin/medium;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            gzip on;
            gzip_types application/json;
            gzip_proxied any;
            gzip_min_length 1024;
            gzip_vary on;
            $NGINX_CACHE_DIRECTIVES
        }

        location = /static {
            default_type application/json;
            return 200 '$STATIC_TEXT';
        }
    }
EOF
    # (m), (n): the hit over TLS, HTTP/1.1 (wrk offers no ALPN) and h2 (h2load), on one listener.
    [ -z "$tls_port" ] || cat <<EOF
    server {
        listen 127.0.0.1:$tls_port ssl http2;
        ssl_certificate $BENCH_TMP/cert.pem;
        ssl_certificate_key $BENCH_TMP/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;

        $NGINX_GRAPHQL_LOCATION
    }
EOF
    echo "}"
  } >"$dir/nginx.conf"
}

# start_nginx NAME WORKERS AFFINITY VAR_PID VAR_BASE [VAR_TLS_BASE]
start_nginx() {
  local name=$1 dir="$BENCH_TMP/$1" port pid tls_port=""
  port=$(bench_free_port)
  if [ -n "${6:-}" ]; then
    tls_port=$(bench_free_port)
    printf -v "$6" 'https://127.0.0.1:%s' "$tls_port"
  fi
  write_nginx_conf "$dir" "$port" "$2" "$3" "$tls_port"
  "$NGINX" -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" \
    || { cat "$dir/error.log" >&2 2>/dev/null || true; bench_die "nginx rejects $dir/nginx.conf"; }
  bench_start pid "$dir/stdout.log" "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g "daemon off;"
  bench_wait_http "$pid" "http://127.0.0.1:$port/static" \
    || { cat "$dir/error.log" "$dir/stdout.log" >&2 2>/dev/null || true; bench_die "$name did not start"; }
  printf -v "$4" '%s' "$pid"
  printf -v "$5" 'http://127.0.0.1:%s' "$port"
}

start_nginx nginx1 1 01 NGINX1_PID NGINX1_BASE NGINX1_TLS_BASE
start_nginx nginx2 2 "" NGINX2_PID NGINX2_BASE
bench_log "nginx (1 worker, CPU 0) at $NGINX1_BASE; (2 workers, unpinned) at $NGINX2_BASE"

# --- same bytes from both, then warm ----------------------------------------------------------

# same_body LABEL FILE_A FILE_B: abort, printing both, unless identical.
same_body() {
  if ! cmp -s "$2" "$3"; then
    printf '\n%s: the bodies differ\n--- %s\n%s\n--- %s\n%s\n' "$1" "$2" "$(cat "$2")" "$3" "$(cat "$3")" >&2
    bench_die "$1: Breakwater and nginx do not serve the same bytes"
  fi
}

# register BW_BASE_URL: registers the hit document (APQ POST with query and hash).
register() {
  local out="$BENCH_TMP/register.json"
  curl -sf -o "$out" "$1" -H 'Content-Type: application/json' \
    --data-binary "$(post_body "$DETAIL" GetLaunchDetail "$HIT_VARIABLES" "$DETAIL_HASH")" \
    || bench_die "APQ registration at $1 failed"
  same_body "APQ registration" "$BENCH_TMP/body.json" "$out"
}

# expect_hit NAME CURL_ARGS...: the X-Cache header must say HIT.
expect_hit() {
  local name=$1 header
  shift
  header=$(curl -s -o /dev/null -D - "$@" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" {print $2}')
  [ "$header" = "HIT" ] || bench_die "$name: expected X-Cache: HIT after warming, got '${header:-none}'"
}

warm() { wrk -t1 -c8 -d"$WARM_DURATION" "$@" >/dev/null; }

for bw in "$BW1_URL" "$BW2_URL"; do
  register "$bw"
  bw_base=${bw%/graphql}
  curl -sf -o "$BENCH_TMP/bw-get.json" "$bw_base$BW_HIT_PATH"
  curl -sf -o "$BENCH_TMP/bw-post.json" "$bw" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-hit.json"
  curl -sf -o "$BENCH_TMP/bw-live.json" "$bw" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-live.json"
  warm "$bw_base$BW_HIT_PATH"
  warm -s "$BENCH_DIR/lua/post.lua" "$bw" -- "$BENCH_TMP/post-hit.json"
  expect_hit "breakwater hashed GET" "$bw_base$BW_HIT_PATH"
  expect_hit "breakwater POST" "$bw" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-hit.json"
done
for ng in "$NGINX1_BASE" "$NGINX2_BASE"; do
  curl -sf -o "$BENCH_TMP/ng-get.json" "$ng$NGINX_HIT_PATH"
  curl -sf -o "$BENCH_TMP/ng-post.json" "$ng/graphql" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-hit.json"
  curl -sf -o "$BENCH_TMP/ng-static.json" "$ng$CEILING_PATH"
  same_body "hashed GET vs full GET" "$BENCH_TMP/bw-get.json" "$BENCH_TMP/ng-get.json"
  same_body "POST with variables" "$BENCH_TMP/bw-post.json" "$BENCH_TMP/ng-post.json"
  same_body "nginx return 200" "$BENCH_TMP/body.json" "$BENCH_TMP/ng-static.json"
  warm "$ng$NGINX_HIT_PATH"
  warm -s "$BENCH_DIR/lua/post.lua" "$ng/graphql" -- "$BENCH_TMP/post-hit.json"
  warm "$ng$CEILING_PATH"
  expect_hit "nginx full GET" "$ng$NGINX_HIT_PATH"
  expect_hit "nginx POST" "$ng/graphql" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-hit.json"
done
curl -sf -o "$BENCH_TMP/origin-live.json" "$ORIGIN_URL" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-live.json"
same_body "miss path (Breakwater vs origin alone)" "$BENCH_TMP/bw-live.json" "$BENCH_TMP/origin-live.json"
warm -s "$BENCH_DIR/lua/post.lua" "$BW1_URL" -- "$BENCH_TMP/post-live.json"
warm -s "$BENCH_DIR/lua/post.lua" "$ORIGIN_URL" -- "$BENCH_TMP/post-live.json"
curl -sf -o "$BENCH_TMP/bw-big.json" "$BW4_URL" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/big-post.json" \
  || bench_die "breakwater does not serve the 100 KB answer"
curl -sf -o "$BENCH_TMP/ng-big.json" "$NGINX1_BASE/big" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/big-post.json"
same_body "100 KB answer" "$BENCH_TMP/bw-big.json" "$BENCH_TMP/ng-big.json"
expect_hit "breakwater 100 KB POST" "$BW4_URL" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/big-post.json"
expect_hit "nginx 100 KB POST" "$NGINX1_BASE/big" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/big-post.json"
# (k): both answer the same JSON, gzipped when asked; identical once decoded.
for server in "$BW5_URL" "$NGINX1_BASE/medium"; do
  tag=$([ "$server" = "$BW5_URL" ] && echo bw || echo ng)
  curl -sf -o /dev/null "$server" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/big-post.json"
  curl -sf -D "$BENCH_TMP/$tag-gzip.head" -o "$BENCH_TMP/$tag-gzip.json.gz" "$server" -H 'Accept-Encoding: gzip' \
    -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/big-post.json"
  grep -qi '^content-encoding: gzip' "$BENCH_TMP/$tag-gzip.head" || bench_die "$server does not gzip the 4 KiB answer"
  gzip -dc <"$BENCH_TMP/$tag-gzip.json.gz" >"$BENCH_TMP/$tag-gzip.json"
  same_body "4 KiB answer, gzipped ($tag)" "$BENCH_TMP/$tag-gzip.json" "$BENCH_TMP/medium.json"
done
GZIP_BYTES=$(wc -c <"$BENCH_TMP/bw-gzip.json.gz")
# (m), (n): the same hit over TLS; h2 where Breakwater offers it by ALPN.
BW7_BASE=${BW7_URL%/graphql}
CURL_CA_BUNDLE="$BENCH_TMP/cert.pem" register "$BW7_URL"
BW_H2=$(curl -s --cacert "$BENCH_TMP/cert.pem" --http2 -o "$BENCH_TMP/bw-h2.json" -w '%{http_version}' "$BW7_BASE$BW_HIT_PATH" || true)
NG_H2=$(curl -s --cacert "$BENCH_TMP/cert.pem" --http2 -o "$BENCH_TMP/ng-h2.json" -w '%{http_version}' \
  "$NGINX1_TLS_BASE$NGINX_HIT_PATH" || true)
[ "$NG_H2" = 2 ] || bench_die "nginx does not answer over h2 at $NGINX1_TLS_BASE (got HTTP/${NG_H2:-none})"
same_body "hashed GET over TLS (nginx h2)" "$BENCH_TMP/body.json" "$BENCH_TMP/ng-h2.json"
same_body "hashed GET over TLS (breakwater)" "$BENCH_TMP/body.json" "$BENCH_TMP/bw-h2.json"
[ "$BW_H2" = 2 ] || bench_log "warning: breakwater answered over HTTP/$BW_H2, not h2: row (n) measures nginx only"
warm "$BW7_BASE$BW_HIT_PATH"
warm "$NGINX1_TLS_BASE$NGINX_HIT_PATH"
CURL_CA_BUNDLE="$BENCH_TMP/cert.pem" expect_hit "breakwater hashed GET over TLS" "$BW7_BASE$BW_HIT_PATH"
CURL_CA_BUNDLE="$BENCH_TMP/cert.pem" expect_hit "nginx full GET over TLS" "$NGINX1_TLS_BASE$NGINX_HIT_PATH"
# (l): both relay the origin's 1 KiB answer as it is.
curl -sf -o "$BENCH_TMP/bw-page.json" "$BW6_URL" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-live.json" \
  || bench_die "breakwater (default configuration) does not relay the 1 KiB answer"
curl -sf -o "$BENCH_TMP/ng-page.json" "$NGINX1_BASE/pass-page" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/post-live.json"
same_body "1 KiB miss (l), breakwater" "$BENCH_TMP/page.json" "$BENCH_TMP/bw-page.json"
same_body "1 KiB miss (l), nginx" "$BENCH_TMP/page.json" "$BENCH_TMP/ng-page.json"
warm -s "$BENCH_DIR/lua/distinct.lua" "$BW3_URL" -- "$BENCH_TMP/live-template.json" 0 1
warm -s "$BENCH_DIR/lua/distinct.lua" "$BW6_URL" -- "$BENCH_TMP/live-template.json" 0 1
warm -s "$BENCH_DIR/lua/distinct.lua" "$NGINX1_BASE/pass-page" -- "$BENCH_TMP/live-template.json" 0 1
warm -s "$BENCH_DIR/lua/distinct.lua" "$NGINX1_BASE/pass" -- "$BENCH_TMP/live-template.json" 0 1
bench_log "both serve the same $BODY_BYTES bytes; warm"

# --- measuring ----------------------------------------------------------------------------------

declare -A RESULTS=()
WRK_SEQ=0
PINNED=(taskset -c 1 wrk -t1 -c50 -d"$DURATION" --latency)
LOW_LOAD=(taskset -c 1 wrk -t1 -c1 -d"$DURATION" --latency)
UNPINNED=(wrk -t2 -c100 -d"$DURATION" --latency)

# measure SCENARIO SERVER WRK_COMMAND...: one run, appended to RESULTS[SCENARIO|SERVER].
# With CPU_OF=PID set for the call, the run's user and system CPU time of that process per
# request is kept too (CPU[SCENARIO|SERVER], "user sys;" in microseconds, run by run).
declare -A CPU
measure() {
  local key="$1|$2" out before=""
  wanted "$1" || return 0
  shift 2
  WRK_SEQ=$((WRK_SEQ + 1))
  out="$BENCH_TMP/wrk-$WRK_SEQ-${key//[^a-z0-9]/_}.txt"
  echo "$*" >"$out.cmd"
  [ -z "${CPU_OF:-}" ] || before=$(bench_cpu_split "$CPU_OF")
  "$@" >"$out" 2>&1 || { cat "$out" >&2; bench_die "wrk failed: $*"; }
  LAST_WRK_OUT=$out
  local figures
  figures=$(bench_parse_wrk "$out")
  RESULTS[$key]+="$figures;"
  if [ -n "$before" ]; then
    CPU[$key]+="$(bench_cpu_split_per_request "$before" "$(bench_cpu_split "$CPU_OF")" "$out");"
  fi
  bench_log "  $key run: $figures (req/s p50_ms p99_ms errors)${before:+; cpu us/request (user sys): $(tr ';' '\n' <<<"${CPU[$key]}" | sed '/^$/d' | tail -n1)}"
}

# measure_h2load SCENARIO SERVER URL: one h2load run (50 connections x 10 streams over TLS, ALPN
# h2, after 1 s of warm-up), appended to RESULTS[SCENARIO|SERVER]; latencies from its log file.
H2LOAD=(taskset -c 1 h2load -t1 -c50 -m10 -D "$DURATION" --warm-up-time=1s)
measure_h2load() {
  local key="$1|$2" out figures
  wanted "$1" || return 0
  WRK_SEQ=$((WRK_SEQ + 1))
  out="$BENCH_TMP/h2load-$WRK_SEQ-${key//[^a-z0-9]/_}.txt"
  echo "${H2LOAD[*]} --log-file=$out.log $3" >"$out.cmd"
  "${H2LOAD[@]}" --log-file="$out.log" "$3" >"$out" 2>&1 || { cat "$out" >&2; bench_die "h2load failed: $3"; }
  grep -q '^Application protocol: h2' "$out" || { cat "$out" >&2; bench_die "h2load did not negotiate h2 with $3"; }
  figures=$(bench_parse_h2load "$out" "$out.log")
  RESULTS[$key]+="$figures;"
  bench_log "  $key run: $figures (req/s p50_ms p99_ms errors)"
}

# wanted ROW: whether BENCH_ROWS selects ROW (all rows when it is unset).
wanted() { [ -z "${BENCH_ROWS:-}" ] || [[ " $BENCH_ROWS " == *" $1 "* ]]; }

stat_of() { curl -sf "$1/stats" | jq -r "$2"; }

# The pinned nginx's one worker: its CPU time per request is kept beside Breakwater's in the
# rows both serve from CPU 0 (hits, misses, the ceiling).
NGINX1_WORKER=$(pgrep -P "$NGINX1_PID" -f "worker process" | head -1)
[ -n "$NGINX1_WORKER" ] || bench_die "no worker process under nginx $NGINX1_PID"

bench_log "measuring: $RUNS run(s) of $DURATION per scenario and server, interleaved"
# The ceiling in the same rounds as (a): the machine's speed drifts over minutes (a process's
# rounds moved 10-20 %), and a ratio between rows taken minutes apart carried that drift.
for run in $(seq 1 "$RUNS"); do
  CPU_OF=$BW1_PID measure a breakwater "${PINNED[@]}" "${BW1_URL%/graphql}$BW_HIT_PATH"
  CPU_OF=$NGINX1_WORKER measure a nginx "${PINNED[@]}" "$NGINX1_BASE$NGINX_HIT_PATH"
  CPU_OF=$NGINX1_WORKER measure ceiling nginx "${PINNED[@]}" "$NGINX1_BASE$CEILING_PATH"
done
for run in $(seq 1 "$RUNS"); do
  CPU_OF=$BW1_PID measure b breakwater "${PINNED[@]}" -s "$BENCH_DIR/lua/post.lua" "$BW1_URL" -- "$BENCH_TMP/post-hit.json"
  CPU_OF=$NGINX1_WORKER measure b nginx "${PINNED[@]}" -s "$BENCH_DIR/lua/post.lua" "$NGINX1_BASE/graphql" -- "$BENCH_TMP/post-hit.json"
done
for run in $(seq 1 "$RUNS"); do
  # The nginx origin, as for (f): the demo origin's own p50 at -c1 moves between 0.5 and 1.7 ms
  # from run to run (Swift concurrency's thread wake-ups), more than the 0.2 ms being measured.
  measure c breakwater "${LOW_LOAD[@]}" -s "$BENCH_DIR/lua/post.lua" "$BW3_URL" -- "$BENCH_TMP/post-live.json"
  measure c origin "${LOW_LOAD[@]}" -s "$BENCH_DIR/lua/post.lua" "http://$NGX_ORIGIN/graphql" -- "$BENCH_TMP/post-live.json"
done

# (d) every run registers its own 50 documents (the alias names the run and the connection).
APQ_NOT_FOUND=0
APQ_REGISTERED=0
for run in $(seq 1 "$RUNS"); do
  docs="$BENCH_TMP/apq-docs-$run.tsv"
  : >"$docs"
  for connection in $(seq 1 50); do
    document="query GetLaunchDetail(\$id: ID!) { r${run}c${connection}: ${SELECTION#\{ }"
    hash=$(bench_hash "$document")
    printf '%s\t%s\n' "$(post_body "$document" GetLaunchDetail '{"id":"7"}' "$hash")" \
      "$(hashed_get_path GetLaunchDetail '{"id":"7"}' "$hash")" >>"$docs"
  done
  before_nf=$(stat_of "$BW1_ADMIN" .apq.not_found)
  before_reg=$(stat_of "$BW1_ADMIN" .apq.registered)
  measure d breakwater "${PINNED[@]}" -s "$BENCH_DIR/lua/apq.lua" "$BW1_URL" -- "$docs" 1
  APQ_NOT_FOUND=$((APQ_NOT_FOUND + $(stat_of "$BW1_ADMIN" .apq.not_found) - before_nf))
  APQ_REGISTERED=$((APQ_REGISTERED + $(stat_of "$BW1_ADMIN" .apq.registered) - before_reg))
done

for run in $(seq 1 "$RUNS"); do
  measure e breakwater "${UNPINNED[@]}" "${BW2_URL%/graphql}$BW_HIT_PATH"
  measure e nginx "${UNPINNED[@]}" "$NGINX2_BASE$NGINX_HIT_PATH"
done
# (f) misses: distinct variables per request, TTL 0, a fast origin (nginx return 200). Each
# server's CPU time per request (/proc) is kept too: the proxy's own cost, which neither the
# scheduler nor the origin moves (BENCHMARKS.md, "Misses").
for run in $(seq 1 "$RUNS"); do
  CPU_OF=$BW3_PID measure f breakwater "${PINNED[@]}" -s "$BENCH_DIR/lua/distinct.lua" "$BW3_URL" -- "$BENCH_TMP/live-template.json" 0 1
  CPU_OF=$NGINX1_WORKER measure f nginx "${PINNED[@]}" -s "$BENCH_DIR/lua/distinct.lua" "$NGINX1_BASE/pass" -- "$BENCH_TMP/live-template.json" 0 1
done
# (l) misses in the setup no one tuned for: Breakwater's default configuration, 64 connections,
# 1 KiB answers (README "Performance"). Distinct ids from a range (l)'s warm-up did not use.
for run in $(seq 1 "$RUNS"); do
  CPU_OF=$BW6_PID measure l breakwater taskset -c 1 wrk -t1 -c64 -d"$DURATION" --latency -s "$BENCH_DIR/lua/distinct.lua" "$BW6_URL" \
    -- "$BENCH_TMP/live-template.json" 0 1 "${run}00000000"
  CPU_OF=$NGINX1_WORKER measure l nginx taskset -c 1 wrk -t1 -c64 -d"$DURATION" --latency -s "$BENCH_DIR/lua/distinct.lua" \
    "$NGINX1_BASE/pass-page" -- "$BENCH_TMP/live-template.json" 0 1 "${run}00000000"
done
# (g) pipelining depth 16, (h) Connection: close churn, (i) 1,000 connections: hashed GET hits.
for run in $(seq 1 "$RUNS"); do
  measure g breakwater "${PINNED[@]}" -s "$BENCH_DIR/lua/pipeline.lua" "${BW1_URL%/graphql}" -- 16 "$BW_HIT_PATH"
  measure g nginx "${PINNED[@]}" -s "$BENCH_DIR/lua/pipeline.lua" "$NGINX1_BASE" -- 16 "$NGINX_HIT_PATH"
done
for run in $(seq 1 "$RUNS"); do
  measure h breakwater "${PINNED[@]}" -H "Connection: close" "${BW1_URL%/graphql}$BW_HIT_PATH"
  measure h nginx "${PINNED[@]}" -H "Connection: close" "$NGINX1_BASE$NGINX_HIT_PATH"
done
for run in $(seq 1 "$RUNS"); do
  measure i breakwater taskset -c 1 wrk -t1 -c1000 -d"$DURATION" --latency "${BW1_URL%/graphql}$BW_HIT_PATH"
  measure i nginx taskset -c 1 wrk -t1 -c1000 -d"$DURATION" --latency "$NGINX1_BASE$NGINX_HIT_PATH"
done
# (j) the 100 KB answer from cache.
for run in $(seq 1 "$RUNS"); do
  measure j breakwater "${PINNED[@]}" -s "$BENCH_DIR/lua/post.lua" "$BW4_URL" -- "$BENCH_TMP/big-post.json"
  measure j nginx "${PINNED[@]}" -s "$BENCH_DIR/lua/post.lua" "$NGINX1_BASE/big" -- "$BENCH_TMP/big-post.json"
done

# (k) the 4 KiB answer from cache to a client that accepts gzip.
for run in $(seq 1 "$RUNS"); do
  measure k breakwater "${PINNED[@]}" -H "Accept-Encoding: gzip" -s "$BENCH_DIR/lua/post.lua" "$BW5_URL" -- "$BENCH_TMP/big-post.json"
  measure k nginx "${PINNED[@]}" -H "Accept-Encoding: gzip" -s "$BENCH_DIR/lua/post.lua" "$NGINX1_BASE/medium" -- "$BENCH_TMP/big-post.json"
done

# (m) the hashed GET hit over TLS, HTTP/1.1; (n) the same over h2, 50 connections x 10 streams.
for run in $(seq 1 "$RUNS"); do
  measure m breakwater "${PINNED[@]}" "$BW7_BASE$BW_HIT_PATH"
  measure m nginx "${PINNED[@]}" "$NGINX1_TLS_BASE$NGINX_HIT_PATH"
done
for run in $(seq 1 "$RUNS"); do
  [ "$BW_H2" != 2 ] || measure_h2load n breakwater "$BW7_BASE$BW_HIT_PATH"
  measure_h2load n nginx "$NGINX1_TLS_BASE$NGINX_HIT_PATH"
done


BW1_STATS=$(curl -sf "$BW1_ADMIN/stats" | jq -c '{requests, hits, misses, bypass, stale, apq: .apq, cache: {entries: .cache.entries, bytes: .cache.bytes}}')
BW2_STATS=$(curl -sf "$BW2_ADMIN/stats" | jq -c '{requests, hits, misses, bypass, stale, cache: {entries: .cache.entries}}')

# --- the table ----------------------------------------------------------------------------------

# median KEY: "rps p50 p99 errors" of the run with the median req/s (lower middle if even).
median() {
  local runs=${RESULTS[$1]:-}
  [ -n "$runs" ] || { echo "0 0 0 -1"; return; }
  tr ';' '\n' <<<"$runs" | sed '/^$/d' | sort -n -k1,1 | awk '{ line[NR] = $0 } END { print line[int((NR + 1) / 2)] }'
}
# ratio A B: A over B, or "-" when either is 0 (no figure: wrk prints 0.00us percentiles under
# the pipelining script, whose latency it records once per batch).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 == 0 || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

ROWS=()
# row SCENARIO_LABEL SERVER_LABEL KEY [BASELINE_KEY]
row() {
  local figures base rps p50 p99 errors brps bp50 bp99 berrors rps_ratio="" p99_ratio="" note=""
  [ -n "${RESULTS[$3]:-}" ] || return 0
  figures=$(median "$3")
  read -r rps p50 p99 errors <<<"$figures"
  if [ -n "${4:-}" ]; then
    base=$(median "$4")
    read -r brps bp50 bp99 berrors <<<"$base"
    rps_ratio=$(ratio "$rps" "$brps")
    p99_ratio=$(ratio "$p99" "$bp99")
  fi
  [ "$errors" = "0" ] || note="$errors errors"
  ROWS+=("$1|$2|$rps|$p50 ms|$p99 ms|$rps_ratio|$p99_ratio|$note")
}

row "(a) hashed GET hit, GetLaunchDetail" breakwater "a|breakwater" "a|nginx"
row "(a) hashed GET hit, GetLaunchDetail" "nginx proxy_cache (full-query GET)" "a|nginx"
row "(b) POST hit with variables" breakwater "b|breakwater" "b|nginx"
row "(b) POST hit with variables" "nginx proxy_cache" "b|nginx"
row "(c) miss, TTL 0, -c1" "breakwater + origin" "c|breakwater" "c|origin"
row "(c) miss, TTL 0, -c1" "origin alone" "c|origin"
read -r _ C_BW_P50 C_BW_P99 _ <<<"$(median "c|breakwater")"
read -r _ C_OR_P50 C_OR_P99 _ <<<"$(median "c|origin")"
ADDED_P50=$(awk -v a="$C_BW_P50" -v b="$C_OR_P50" 'BEGIN { printf "%+.3f", a - b }')
ADDED_P99=$(awk -v a="$C_BW_P99" -v b="$C_OR_P99" 'BEGIN { printf "%+.3f", a - b }')
wanted c && ROWS+=("(c) miss, TTL 0, -c1|added by breakwater||$ADDED_P50 ms|$ADDED_P99 ms|||target p50 <= 0.2 ms")
row "(d) APQ register-then-hit" "breakwater (nginx: no APQ)" "d|breakwater"
row "(e) 2 loops/workers, unpinned, -t2 -c100" breakwater "e|breakwater" "e|nginx"
row "(e) 2 loops/workers, unpinned, -t2 -c100" "nginx proxy_cache" "e|nginx"
row "(f) miss, distinct variables, TTL 0, nginx origin" breakwater "f|breakwater" "f|nginx"
row "(f) miss, distinct variables, TTL 0, nginx origin" "nginx proxy_pass (keep-alive upstream)" "f|nginx"
row "(l) miss, default config, -c64, 1 KiB answer" breakwater "l|breakwater" "l|nginx"
row "(l) miss, default config, -c64, 1 KiB answer" "nginx proxy_pass (keep-alive upstream)" "l|nginx"
row "(g) pipelining depth 16, hashed GET hit" breakwater "g|breakwater" "g|nginx"
row "(g) pipelining depth 16, hashed GET hit" "nginx proxy_cache" "g|nginx"
row "(h) Connection: close churn, hit" breakwater "h|breakwater" "h|nginx"
row "(h) Connection: close churn, hit" "nginx proxy_cache" "h|nginx"
row "(i) 1,000 connections, hit" breakwater "i|breakwater" "i|nginx"
row "(i) 1,000 connections, hit" "nginx proxy_cache" "i|nginx"
row "(j) 100 KB answer, POST hit" breakwater "j|breakwater" "j|nginx"
row "(j) 100 KB answer, POST hit" "nginx proxy_cache" "j|nginx"
row "(k) gzip hit, 4 KiB answer (${GZIP_BYTES} B gzipped)" breakwater "k|breakwater" "k|nginx"
row "(k) gzip hit, 4 KiB answer (${GZIP_BYTES} B gzipped)" "nginx proxy_cache + gzip" "k|nginx"
row "(m) TLS, HTTP/1.1 hashed GET hit" breakwater "m|breakwater" "m|nginx"
row "(m) TLS, HTTP/1.1 hashed GET hit" "nginx ssl proxy_cache" "m|nginx"
row "(n) h2 over TLS, hit, h2load -c50 -m10" breakwater "n|breakwater" "n|nginx"
row "(n) h2 over TLS, hit, h2load -c50 -m10" "nginx ssl http2 proxy_cache" "n|nginx"
row "ceiling: nginx return 200, same body" "nginx static" "ceiling|nginx"

# goal KEY BASELINE_KEY FIELD BOUND: "PASS (1.77x)" or "FAIL (0.60x)", the ratio of KEY's median
# run to BASELINE_KEY's in FIELD (1 req/s, which must reach BOUND; 3 p99, which must stay within it).
goal() {
  local a b
  { [ -n "${RESULTS[$1]:-}" ] && [ -n "${RESULTS[$2]:-}" ]; } || { echo "not run"; return; }
  a=$(median "$1" | cut -d' ' -f"$3")
  b=$(median "$2" | cut -d' ' -f"$3")
  awk -v a="$a" -v b="$b" -v bound="$4" -v atLeast="$([ "$3" = 1 ] && echo 1 || echo 0)" 'BEGIN {
    r = (b > 0 ? a / b : 0)
    printf "%s (%.2fx)", ((atLeast ? r >= bound : r <= bound) && b > 0 ? "PASS" : "FAIL"), r }'
}
# cpu_of KEY: "user system" microseconds per request, each the median over KEY's runs.
cpu_of() {
  local runs=${CPU[$1]:-}
  [ -n "$runs" ] || return 0
  echo "$(bench_median "$(tr ';' '\n' <<<"$runs" | awk 'NF { print $1 }')")" \
    "$(bench_median "$(tr ';' '\n' <<<"$runs" | awk 'NF { print $2 }')")"
}
# cpu_verdict ROW BASELINE_KEY: ROW's CPU per request on each side (user + system, median of runs)
# and the baseline's over Breakwater's: what the req/s ratio would be if CPU 0 alone decided it.
cpu_verdict() {
  local bw base
  bw=$(cpu_of "$1|breakwater")
  base=$(cpu_of "$2")
  { [ -n "$bw" ] && [ -n "$base" ]; } || { echo "($1) not run"; return; }
  awk -v row="$1" -v a="$bw" -v b="$base" 'BEGIN {
    split(a, x, " "); split(b, y, " "); ta = x[1] + x[2]; tb = y[1] + y[2]
    printf "(%s) breakwater %.2f + %.2f us, %s %.2f + %.2f us: %.2fx", row, x[1], x[2], "nginx", y[1], y[2], (ta > 0 ? tb / ta : 0) }'
}
# The goals of README "Performance", one verdict each; then what the other rows say beside them.
VERDICTS=(
  "goal: hits >= 1.5x nginx proxy_cache: (a) $(goal a\|breakwater a\|nginx 1 1.5), (b) $(goal b\|breakwater b\|nginx 1 1.5); p99 no worse: (a) $(goal a\|breakwater a\|nginx 3 1.0), (b) $(goal b\|breakwater b\|nginx 3 1.0)"
  "goal: hits >= 0.8x nginx return 200 of the same body (the ceiling): (a) $(goal a\|breakwater ceiling\|nginx 1 0.8)"
  "goal: misses >= 1.0x nginx proxy_pass: (f) $(goal f\|breakwater f\|nginx 1 1.0), (l) $(goal l\|breakwater l\|nginx 1 1.0)"
  "goal: TLS and h2 hits >= 1.3x nginx: (m) $(goal m\|breakwater m\|nginx 1 1.3), (n) $(goal n\|breakwater n\|nginx 1 1.3); p99 no worse: (m) $(goal m\|breakwater m\|nginx 3 1.0), (n) $(goal n\|breakwater n\|nginx 3 1.0)"
  "goal: added miss latency at p50 < 0.2 ms: $(wanted c && awk -v d="$ADDED_P50" 'BEGIN { print (d < 0.2 ? "PASS" : "FAIL") }' || echo "not run") ($ADDED_P50 ms)"
  "goal: RSS <= 1.3x the payload when full, flat under churn: bench/memory.sh $([ "${BENCH_SKIP_MEMORY:-0}" = "1" ] && echo "(skipped)" || echo "(below)")"
  "other hit rows at least nginx's: (e) $(goal e\|breakwater e\|nginx 1 1.0), (g) $(goal g\|breakwater g\|nginx 1 1.0), (h) $(goal h\|breakwater h\|nginx 1 1.0), (i) $(goal i\|breakwater i\|nginx 1 1.0), (j) $(goal j\|breakwater j\|nginx 1 1.0), (k) $(goal k\|breakwater k\|nginx 1 1.0)"
  "CPU on CPU 0 per request, user + system, medians of runs, and nginx's over Breakwater's (the req/s ratio that CPU time alone predicts): $(cpu_verdict a a\|nginx); $(cpu_verdict b b\|nginx); $(cpu_verdict f f\|nginx); $(cpu_verdict l l\|nginx); against the ceiling $(cpu_verdict a ceiling\|nginx)"
)

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
HEADER=(
  "machine: $(nproc) CPUs, ${CPU_MODEL:-unknown CPU}, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "nginx: $("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
  "wrk: $(wrk -v 2>&1 | head -n1 | sed 's/ Copyright.*//' || true)"
  "swift: $(swift --version 2>&1 | head -n1)"
  "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  "runs: $RUNS x $DURATION per scenario and server, interleaved; median run by req/s; body $BODY_BYTES bytes"
  "h2load: $(h2load --version 2>&1 | head -n1)"
  "layout: server on CPU 0 (taskset / worker_cpu_affinity), wrk -t1 -c50 (h2load -t1 -c50 -m10 for (n)) and the nginx origin of (c)/(f)/(l) on CPU 1; (c) -c1; (l) -c64; (e) unpinned; (m), (n) over TLS"
)

print_text() {
  local line
  for line in "${HEADER[@]}"; do echo "$line"; done
  echo
  printf '%-42s %-36s %9s %11s %11s %8s %8s  %s\n' scenario server "req/s" p50 p99 "rps/ngx" "p99/ngx" note
  for line in "${ROWS[@]}"; do
    IFS='|' read -r s srv rps p50 p99 rr pr note <<<"$line"
    printf '%-42s %-36s %9s %11s %11s %8s %8s  %s\n' "$s" "$srv" "$rps" "$p50" "$p99" "$rr" "$pr" "$note"
  done
  echo "(ratios: Breakwater / nginx; for (c) Breakwater + origin / origin alone)"
  echo
  for line in "${VERDICTS[@]}"; do echo "$line"; done
}

print_markdown() {
  local line
  echo "# Breakwater vs nginx proxy_cache"
  echo
  for line in "${HEADER[@]}"; do echo "- $line"; done
  echo
  echo "| scenario | server | req/s | p50 | p99 | req/s vs nginx | p99 vs nginx | note |"
  echo "|---|---|---:|---:|---:|---:|---:|---|"
  for line in "${ROWS[@]}"; do
    IFS='|' read -r s srv rps p50 p99 rr pr note <<<"$line"
    echo "| $s | $srv | $rps | $p50 | $p99 | $rr | $pr | $note |"
  done
  echo
  echo "Ratios: Breakwater over nginx for (a), (b), (e) (req/s: higher is better; p99: lower is better);"
  echo "for (c) over the origin alone. (d) has no nginx counterpart: nginx does not speak APQ."
  echo "(d): $APQ_REGISTERED documents registered, $APQ_NOT_FOUND PersistedQueryNotFound answers over all runs."
  echo
  for line in "${VERDICTS[@]}"; do echo "- $line"; done
  echo
  echo "Breakwater /stats after the run: 1 loop $BW1_STATS; 2 loops $BW2_STATS"
}

mkdir -p "$BENCH_DIR/results"
RESULT_MD=${BENCH_RESULT_MD:-"$BENCH_DIR/results/latest.md"}
echo
print_text
echo
echo "(d): $APQ_REGISTERED documents registered, $APQ_NOT_FOUND PersistedQueryNotFound answers over all runs; nginx has no APQ."
echo "breakwater /stats: 1 loop $BW1_STATS"
echo "                   2 loops $BW2_STATS"
print_markdown >"$RESULT_MD"

# --- memory -------------------------------------------------------------------------------------

bench_stop_all
if [ "${BENCH_SKIP_MEMORY:-0}" != "1" ]; then
  echo
  BENCH_BIN="$BREAKWATER" BENCH_MD_OUT="$RESULT_MD" bash "$BENCH_DIR/memory.sh"
fi
echo
echo "written: ${RESULT_MD#"$REPO_DIR"/}"

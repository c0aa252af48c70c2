# Helpers shared by bench/run.sh and bench/memory.sh (sourced, not run).
#
# Every process a script starts goes through `bench_start`, which records its pid; the EXIT
# trap installed by `bench_install_traps` stops exactly those pids (and, for nginx, the
# workers of a recorded master), nothing found by name.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
BENCH_PIDS=()
BENCH_TMP=""

bench_log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
bench_die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

# --- installation and build -----------------------------------------------------------------

# Installs the Debian packages given when missing (sudo when not root; `apt-get update` once
# if the first install fails).
bench_install_packages() {
  local missing=() package sudo=""
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || bench_die "missing ${missing[*]} and no apt-get to install them"
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  bench_log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

bench_install_all() {
  bench_install_packages nginx wrk curl jq util-linux iproute2 procps
  "$REPO_DIR/scripts/install-deps.sh"
}

# Sets BREAKWATER to the release binary, building it first (BENCH_BIN overrides the path and
# skips the build: handy to bench a binary built elsewhere).
bench_build() {
  if [ -n "${BENCH_BIN:-}" ]; then
    BREAKWATER=$BENCH_BIN
    [ -x "$BREAKWATER" ] || bench_die "BENCH_BIN=$BENCH_BIN is not an executable"
    bench_log "using $BREAKWATER (BENCH_BIN, not rebuilt)"
    return 0
  fi
  bench_log "building: swift build -c release --product breakwater"
  local log="${BENCH_TMP:-/tmp}/swift-build.log"
  if ! (cd "$REPO_DIR" && swift build -c release --product breakwater) >"$log" 2>&1; then
    # The package tool itself has been seen to crash (a segmentation fault in swift-package, no
    # compiler error): one more try; a real compile error fails the second time too.
    bench_log "release build failed; once more (first log: $log.first)"
    mv "$log" "$log.first"
    if ! (cd "$REPO_DIR" && swift build -c release --product breakwater) >"$log" 2>&1; then
      tail -n 40 "$log" >&2
      bench_die "release build failed (full log above: $log)"
    fi
  fi
  BREAKWATER="$REPO_DIR/.build/release/breakwater"
  [ -x "$BREAKWATER" ] || bench_die "no binary at $BREAKWATER after the build"
}

# nginx lives in /usr/sbin, which is not on every user's PATH.
bench_nginx_bin() {
  if command -v nginx >/dev/null; then command -v nginx; elif [ -x /usr/sbin/nginx ]; then echo /usr/sbin/nginx; else
    bench_die "nginx not found"
  fi
}

# --- processes ------------------------------------------------------------------------------

# bench_start VAR LOG CMD...: starts CMD in the background with its output in LOG, records its
# pid for the cleanup and stores it in VAR. (`taskset -c N cmd` execs cmd: same pid.)
bench_start() {
  local __bench_var=$1 __bench_log=$2
  shift 2
  "$@" >"$__bench_log" 2>&1 </dev/null &
  BENCH_PIDS+=("$!")
  printf -v "$__bench_var" '%s' "$!"
}

bench_alive() { kill -0 "$1" 2>/dev/null; }

# Stops one pid we started: SIGTERM, up to 5 s, then SIGKILL; nginx workers (children of a
# master we started) are collected first and killed by pid if they outlive their master.
bench_stop() {
  local pid=$1 children i
  bench_alive "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
  children=$(pgrep -P "$pid" 2>/dev/null || true)
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do
    bench_alive "$pid" || break
    sleep 0.1
  done
  if bench_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  wait "$pid" 2>/dev/null || true
  for i in $children; do
    if bench_alive "$i"; then kill -KILL "$i" 2>/dev/null || true; fi
  done
  local kept=()
  for i in "${BENCH_PIDS[@]}"; do [ "$i" = "$pid" ] || kept+=("$i"); done
  BENCH_PIDS=("${kept[@]+"${kept[@]}"}")
}

bench_stop_all() {
  local i
  for ((i = ${#BENCH_PIDS[@]} - 1; i >= 0; i--)); do
    bench_stop "${BENCH_PIDS[$i]}"
  done
  BENCH_PIDS=()
}

bench_cleanup() {
  local status=$?
  trap - EXIT INT TERM
  bench_stop_all
  if [ -n "$BENCH_TMP" ] && [ -d "$BENCH_TMP" ] && [ -z "${BENCH_KEEP_TMP:-}" ]; then rm -rf "$BENCH_TMP"; fi
  exit "$status"
}

# Creates the temp dir and the traps that stop everything on any exit.
bench_install_traps() {
  BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/breakwater-bench.XXXXXX")
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# bench_wait_line PID LOG REGEX [SECONDS]: waits for a line matching REGEX in LOG, prints it.
bench_wait_line() {
  local pid=$1 log=$2 regex=$3 seconds=${4:-30} i line
  for ((i = 0; i < seconds * 10; i++)); do
    line=$(grep -E -m1 "$regex" "$log" 2>/dev/null || true)
    if [ -n "$line" ]; then printf '%s\n' "$line"; return 0; fi
    if ! bench_alive "$pid"; then
      cat "$log" >&2
      bench_die "process $pid exited before printing /$regex/ (log above)"
    fi
    sleep 0.1
  done
  cat "$log" >&2
  bench_die "timed out waiting for /$regex/ in $log"
}

# The port of the first http://HOST:PORT (or https://) in a line.
bench_port_of() { grep -oE 'https?://[^/ ]+' <<<"$1" | head -n1 | sed -E 's/.*:([0-9]+)$/\1/'; }

# A free high TCP port on loopback (nothing bound to it, nothing listening on it).
bench_free_port() {
  local port i
  for i in $(seq 1 200); do
    port=$((20000 + RANDOM % 40000))
    if command -v ss >/dev/null; then
      [ -z "$(ss -Htan "( sport = :$port )" 2>/dev/null)" ] || continue
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    echo "$port"
    return 0
  done
  bench_die "found no free port"
}

# bench_wait_http PID URL: waits until URL answers at all.
bench_wait_http() {
  local pid=$1 url=$2 i
  for i in $(seq 1 100); do
    curl -s -o /dev/null --max-time 1 "$url" && return 0
    bench_alive "$pid" || return 1
    sleep 0.1
  done
  return 1
}

# --- Breakwater and the demo origin ---------------------------------------------------------

# bench_start_origin VAR_PID VAR_URL: the demo origin on an ephemeral loopback port.
bench_start_origin() {
  local log="$BENCH_TMP/origin.log" pid line
  bench_start pid "$log" "$BREAKWATER" demo --origin-only --origin-listen 127.0.0.1:0 --threads 1 --log-level warning
  line=$(bench_wait_line "$pid" "$log" 'demo origin listening on http://')
  printf -v "$1" '%s' "$pid"
  printf -v "$2" 'http://127.0.0.1:%s/graphql' "$(bench_port_of "$line")"
}

# bench_start_breakwater NAME CONFIG THREADS CPU(or "") VAR_PID VAR_URL VAR_ADMIN
bench_start_breakwater() {
  local name=$1 config=$2 threads=$3 cpu=$4 log="$BENCH_TMP/$1.log" pid line admin
  local command=("$BREAKWATER" run --config "$config" --threads "$threads" --listen 127.0.0.1:0
    --admin-listen 127.0.0.1:0 --log-level warning)
  if [ -n "$cpu" ]; then command=(taskset -c "$cpu" "${command[@]}"); fi
  bench_start pid "$log" "${command[@]}"
  line=$(bench_wait_line "$pid" "$log" 'breakwater: listening on https?://')
  admin=$(bench_wait_line "$pid" "$log" 'admin listening on http://')
  printf -v "$5" '%s' "$pid"
  # A config with server.tls listens on https://.
  printf -v "$6" '%s://127.0.0.1:%s/graphql' "$(grep -oE 'https?' <<<"${line#*listening on }" | head -n1)" \
    "$(bench_port_of "$line")"
  printf -v "$7" 'http://127.0.0.1:%s' "$(bench_port_of "$admin")"
}

# Resident set size of a pid, in KiB.
bench_rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# --- JSON and URLs --------------------------------------------------------------------------

bench_uri() { jq -rn --arg s "$1" '$s|@uri'; }

# The APQ hash of a document, by the binary under test.
bench_hash() { printf '%s' "$1" | "$BREAKWATER" hash; }

# --- wrk ------------------------------------------------------------------------------------

# bench_cpu_ticks PID: the process's CPU time so far (user + system), in clock ticks.
bench_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# bench_cpu_per_request TICKS WRK_OUTPUT: microseconds of CPU per request of that wrk run.
bench_cpu_per_request() {
  awk -v t="$1" -v n="$(awk '/requests in/ { print $1 }' "$2")" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.2f", (n > 0 ? t * 1e6 / hz / n : 0) }'
}

# bench_cpu_split PID: "user system" CPU ticks of a process so far (all its threads).
bench_cpu_split() { awk '{ print $14, $15 }' "/proc/$1/stat"; }

# bench_cpu_split_per_request "USER SYS" "USER SYS" WRK_OUTPUT: microseconds of user and of system
# CPU per request between two bench_cpu_split readings, over that wrk run's requests.
bench_cpu_split_per_request() {
  awk -v a="$1" -v b="$2" -v n="$(awk '/requests in/ { print $1 }' "$3")" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    split(a, x, " "); split(b, y, " "); k = (n > 0 ? 1e6 / hz / n : 0)
    printf "%.2f %.2f", (y[1] - x[1]) * k, (y[2] - x[2]) * k }'
}

# bench_median "N N ...": the median of a list of numbers.
bench_median() {
  printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_parse_wrk FILE: prints "rps p50_ms p99_ms errors" (errors: non-2xx/3xx + socket errors).
bench_parse_wrk() {
  awk '
    function ms(v) {
      if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
      if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
      if (v ~ /m$/) return substr(v, 1, length(v) - 1) * 60000
      if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1000
      return v + 0
    }
    /^[ \t]*50%/ { p50 = ms($2) }
    /^[ \t]*99%/ { p99 = ms($2) }
    /^Requests\/sec:/ { rps = $2 }
    /Non-2xx or 3xx responses:/ { errors += $NF }
    /Socket errors:/ { for (i = 3; i <= NF; i++) { v = $i; gsub(",", "", v); if (v ~ /^[0-9]+$/) errors += v } }
    END {
      if (rps == "") { print "0 0 0 -1"; exit }
      printf "%.0f %.3f %.3f %d\n", rps, p50, p99, errors
    }' "$1"
}

# bench_parse_h2load FILE LOG: prints "rps p50_ms p99_ms errors" of an h2load run, the latencies
# from its --log-file (microseconds per request, third column); errors: failed, errored, timed
# out and non-2xx.
bench_parse_h2load() {
  local rps errors percentiles
  rps=$(awk '/^finished in/ { v = $4; gsub(",", "", v); print v }' "$1")
  [ -n "$rps" ] || { echo "0 0 0 -1"; return; }
  errors=$(awk '/^requests:/ { e = $10 + $12 + $14 } /^status codes:/ { e += $5 + $7 + $9 } END { print e + 0 }' "$1")
  percentiles=$(awk -F'\t' '{ print $3 }' "$2" | sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "0 0"; exit }
    i50 = int(NR * 0.50); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
    printf "%.3f %.3f", v[i50] / 1000, v[i99] / 1000 }')
  printf '%.0f %s %d\n' "$rps" "$percentiles" "$errors"
}

# bench_write_config FILE ORIGIN_URL CACHE_YAML: a Breakwater config listening on port 0, with an
# in-memory registry, and CACHE_YAML (lines indented under `cache:`).
bench_write_config() {
  {
    printf 'server:\n  listen: "127.0.0.1:0"\norigin:\n  url: "%s"\nlogging:\n  access_log: off\n' "$2"
    printf 'persisted_queries:\n  mode: automatic\n  store: ""\ncache:\n%s\n' "$3"
  } >"$1"
}

# --- nginx ------------------------------------------------------------------------------------

# nginx_preamble DIR: the lines every nginx here starts with: pid, logs, events and the opening
# of the http block with temp paths under DIR (the caller closes the block).
nginx_preamble() {
  local dir=$1
  cat <<EOF
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy_temp;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    keepalive_requests 1000000;
EOF
}

# bench_write_page FILE: the 1 KiB answer of the untuned miss setup (five launches, as JSON
# answers look in practice), the body the nginx origin's /page returns.
bench_write_page() {
  python3 -c '
import json, sys
launches = [{"id": str(i), "site": ["CCAFS SLC 40", "KSC LC 39A", "VAFB SLC 4E"][i % 3],
             "mission": {"name": "Mission %d" % i, "missionPatch": "https://images2.imgbox.com/patch-%d.png" % i},
             "rocket": {"id": "falcon9", "name": "Falcon 9", "type": ["v1.0", "FT", "Block 5"][i % 3]}}
            for i in range(1, 6)]
answer = {"data": {"launch": launches[0], "upcoming": {"cursor": "1583556631", "hasMore": True, "launches": launches[1:]}}}
sys.stdout.write(json.dumps(answer, separators=(",", ":")))' >"$1"
}

# bench_write_default_config FILE ORIGIN_URL: Breakwater's default configuration (`origin.schema:
# auto`, `default_ttl: 0s`, no rules), listening on port 0, with an in-memory registry and no
# access log (nginx runs here without one too).
bench_write_default_config() {
  printf 'server:\n  listen: "127.0.0.1:0"\norigin:\n  url: "%s"\nlogging:\n  access_log: off\npersisted_queries:\n  store: ""\n' "$2" >"$1"
}

# bench_nginx_return_text FILE: FILE's text for an nginx `return 200 '...'` (a complex value:
# \ and ' escaped, $ spelt ${dollar}, which the http block defines with `geo`).
bench_nginx_return_text() { sed -e 's/\\/\\\\/g' -e "s/'/\\\\'/g" -e 's/\$/${dollar}/g' "$1"; }

# The origin's `location = /page`: a `return 200` of $BENCH_TMP/page.json when the caller wrote
# it (`bench_write_page`).
origin_nginx_page_location() {
  [ -f "$BENCH_TMP/page.json" ] || return 0
  printf '        location = /page { default_type application/json; return 200 '"'"'%s'"'"'; }\n' \
    "$(bench_nginx_return_text "$BENCH_TMP/page.json")"
}

# start_origin_nginx VAR_HOSTPORT: an nginx origin answering every request at once, its worker on
# CPU 1 (NGINX set by the caller; /big, /medium and /page serve $BENCH_TMP/big.json, medium.json
# and page.json when the caller wrote them).
start_origin_nginx() { # VAR_HOSTPORT
  local dir="$BENCH_TMP/origin-nginx" port pid
  port=$(bench_free_port)
  mkdir -p "$dir/client_body" "$dir/proxy_temp" "$dir/fastcgi" "$dir/uwsgi" "$dir/scgi"
  {
    echo "worker_processes 1;"
    # On CPU 1 with wrk, the load-generating side: CPU 0 stays the server's under test. Left to
    # the scheduler, the origin moved between the CPUs from run to run, and row (f) moved with it
    # (Breakwater 32.7k-50.9k req/s by the origin's CPU alone; BENCHMARKS.md, "Misses").
    [ "$(nproc)" -ge 2 ] && echo "worker_cpu_affinity 10;"
    [ "$(id -u)" -eq 0 ] && echo "user root;"
    nginx_preamble "$dir"
    cat <<EOF
    geo \$dollar { default "\$"; }
    server {
        listen 127.0.0.1:$port;
        location = /graphql { default_type application/json; return 200 '{"data":{"launch":{"id":"1","site":"KSC"}}}'; }
        # The static module refuses POST with 405: answer it with the file as a 200.
        location = /big { default_type application/json; error_page 405 =200 /big.json; return 405; }
        location = /big.json { default_type application/json; root $BENCH_TMP; }
        location = /medium { default_type application/json; error_page 405 =200 /medium.json; return 405; }
        location = /medium.json { default_type application/json; root $BENCH_TMP; }
        location = /static { return 200 'ok'; }
$(origin_nginx_page_location)
    }
}
EOF
  } >"$dir/nginx.conf"
  bench_start pid "$dir/stdout.log" "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g "daemon off;"
  bench_wait_http "$pid" "http://127.0.0.1:$port/static" || bench_die "the nginx origin did not start"
  printf -v "$1" '127.0.0.1:%s' "$port"
}

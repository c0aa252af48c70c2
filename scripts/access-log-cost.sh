#!/usr/bin/env bash
# What the access log costs on the hit path (docs/OPERATING.md "Access log cost").
#  1. callgrind: instructions per hashed-GET hit with the access log off, text and JSON (to a
#     file). Each mode runs the proxy (one loop) under valgrind twice, with N1 and N2 hits on one
#     keep-alive connection; (Ir(N2) - Ir(N1)) / (N2 - N1) is the cost of one hit, start-up and
#     warm-up cancelled out. Repeatable under load (instructions, not time); all threads counted,
#     the log writer's included.
#  2. wrk: the same hit, off and on (text, to a file) alternately, ACCESS_PAIRS pairs of
#     ACCESS_SECONDS each, Breakwater pinned to CPU 0 and wrk to CPU 1; the load average is printed
#     with each pair (throughput on a shared machine is noise unless the load is low), and the
#     proxy's CPU time per request (user + system, all threads, from /proc/PID/stat).
#  3. perf (ACCESS_MODES=perf, needs `perf`): the access log on (text, to a file) under wrk,
#     cpu-clock samples of every thread for ACCESS_SECONDS; prints the share of samples in the
#     log writer thread and in the functions that write lines on the loop: the log's share of the
#     proxy's CPU, kernel included, in one run (no off/on pair for the machine's load to skew).
#   BENCH_BIN=PATH  the release binary to measure (default: builds .build/release/breakwater)
#   ACCESS_CALLGRIND_OPTS="--dump-instr=yes"  more valgrind options (BENCH_KEEP_TMP=1 keeps the dumps)
#   ACCESS_MODES="callgrind wrk"  ACCESS_N1=200 ACCESS_N2=1200  ACCESS_PAIRS=4 ACCESS_SECONDS=5
#   ACCESS_DESTS="file"  where wrk's "on" runs write (text): any of file (the bench's temporary
#     directory, on disk), shm (a file in /dev/shm: tmpfs), null (/dev/null), pipe (a FIFO read by
#     `cat` on CPU 1: stdout piped to a log collector, as in a container); several are run in
#     turn within each pair (off, then one run per destination), so that they share the load. The
#     kernel's page-cache cost is file or shm minus null.
#   ACCESS_RESTART=0  1: new proxies for every pair (a process's own luck, e.g. where its buffers
#     landed, otherwise persists through all pairs and can look like the log's cost)
#   ACCESS_CONNECTIONS=50  wrk's connections in the wrk runs. With 50 the proxy is saturated and
#     wrk idles more the slower it is, so every wake-up of wrk costs the proxy more per request: a
#     closed loop that magnifies any extra cost. Fewer connections (4) loosen it, but on a quiet
#     machine 4 already saturate one loop (~60k req/s).
#   ACCESS_PERF_LOG=text  the perf run's access log: text (to a file) or off (the same samples with
#     the log off, to compare kernel functions per request: BENCH_KEEP_TMP=1 keeps perf.data)
#   ACCESS_PERF_OPTS="-g"  more `perf record` options (call graphs: who calls a kernel function)
#   ACCESS_MODES=toggle  one proxy per round (ACCESS_PAIRS rounds), its access log switched off
#     and on by SIGHUP, ACCESS_PHASES=4 off/on pairs per round (off on, on off, ...), to the first
#     of ACCESS_DESTS: off and on share the process (its own luck cancels); prints each round's
#     ratio of the medians of CPU per request and the median over rounds.
#   ACCESS_WRITER_CPU=1  (toggle) moves the log writer thread to that CPU, the loop staying on CPU 0:
#     what the log costs the loop when the host has a CPU to spare for the writer.
#   ACCESS_DELAY_MS=N  (wrk, toggle) each wrk connection waits N ms between its requests (wrk's
#     `delay()`), so the offered rate is at most ACCESS_CONNECTIONS * 1000 / N req/s whatever the
#     proxy's speed: with the proxy below saturation, off and on serve the same rate and CPU per
#     request compares the work alone, without the closed loop of a saturated run (a slower proxy
#     finds wrk asleep more often and pays for more wake-ups per request).
#   ACCESS_MODES=side  two new proxies per round, off and on, both on CPU 0 at the same time, each
#     under its own wrk on CPU 1 (paced with ACCESS_DELAY_MS; without it both saturate CPU 0
#     together): the machine's slow spells hit both alike; prints each round's ratio of CPU per
#     request and the median over rounds. ACCESS_FORMAT=json logs JSON lines instead of text.
#     ACCESS_SIDE_SERVER=nginx measures nginx's own access log the same way instead (one worker,
#     `return 200` with a body of the hit's size, a log_format with the text line's fields,
#     `buffer=64k flush=1s`, to a file).
#   ACCESS_COMPARE_BIN=PATH  a second binary (an earlier build) whose "on" runs, named DEST@2, are
#     added to every pair: two builds compared under the same load (one "off", the first binary's).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../bench/lib.sh"
MODES=${ACCESS_MODES:-"callgrind wrk"}  # and/or perf
N1=${ACCESS_N1:-200}
N2=${ACCESS_N2:-1200}
PAIRS=${ACCESS_PAIRS:-4}
SECONDS_PER_RUN=${ACCESS_SECONDS:-5}

bench_install_traps
bench_install_packages valgrind wrk curl jq python3 util-linux
bench_build
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift 6 writes: callgrind counts a copy
# without debug sections (the symbol table stays, so callgrind_annotate still names functions).
CALLGRIND_BIN=$BENCH_TMP/breakwater
objcopy --strip-debug "$BREAKWATER" "$CALLGRIND_BIN"
bench_start_origin ORIGIN_PID ORIGIN_URL

DOCUMENT='query GetLaunchDetail($id: ID!) { launch(id: $id) { id site isBooked mission { name missionPatch } rocket { id name type } } }'
HASH=$(bench_hash "$DOCUMENT")
EXTENSIONS=$(printf '{"persistedQuery":{"version":1,"sha256Hash":"%s"}}' "$HASH")
REGISTER=$(jq -cn --arg q "$DOCUMENT" --argjson e "$EXTENSIONS" \
  '{query: $q, operationName: "GetLaunchDetail", variables: {id: "60"}, extensions: $e}')
HIT_TARGET="/graphql?operationName=GetLaunchDetail&variables=$(bench_uri '{"id":"60"}')&extensions=$(bench_uri "$EXTENSIONS")"

DESTS=${ACCESS_DESTS:-file}
# shm: a file in /dev/shm (tmpfs), in a directory made once for every mode that writes there.
SHM_DIR=""
if [[ " $DESTS " == *" shm "* ]]; then
  SHM_DIR=$(mktemp -d /dev/shm/breakwater-access.XXXXXX)
  trap 'rm -rf "$SHM_DIR"; bench_cleanup' EXIT
fi
# pipe: a FIFO drained by `cat` on CPU 1 (the client's CPU), as stdout piped to a log collector
# in a container; the reader is restarted whenever the proxy closes its end (a reload to off).
ACCESS_PIPE="$BENCH_TMP/access.pipe"
if [[ " $DESTS " == *" pipe "* ]]; then
  mkfifo "$ACCESS_PIPE"
  bench_start PIPE_READER_PID "$BENCH_TMP/pipe-reader.log" taskset -c 1 bash -c "while true; do cat '$ACCESS_PIPE' >/dev/null; done"
fi

# config MODE [DEST]: MODE off | text | json; DEST file (default) | shm | null.
config() {
  local file="$BENCH_TMP/$1${2:+-$2}.yaml" destination="$BENCH_TMP/access-$1.log" format=$1
  case ${2:-file} in
    file) ;;
    shm) destination="$SHM_DIR/access-$1.log" ;;
    null) destination=/dev/null ;;
    pipe) destination=$ACCESS_PIPE ;;
    *) bench_die "ACCESS_DESTS: unknown destination '$2' (file, shm, null, pipe)" ;;
  esac
  [ "$1" = off ] && { destination=off; format=text; }
  {
    printf 'server:\n  listen: "127.0.0.1:0"\norigin:\n  url: "%s"\n' "$ORIGIN_URL"
    printf 'logging:\n  format: %s\n  access_log: %s\n' "$format" "$destination"
    printf 'persisted_queries:\n  mode: automatic\n  store: ""\ncache:\n  rules:\n    - operation: GetLaunchDetail\n      ttl: 1h\n'
  } >"$file"
  echo "$file"
}

# hits PORT N: registers the document, then N hashed-GET hits on one keep-alive connection.
hits() {
  python3 - "$1" "$2" "$REGISTER" "$HIT_TARGET" <<'PY'
import http.client, sys
port, count, register, target = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
connection.request("POST", "/graphql", body=register, headers={"Content-Type": "application/json"})
connection.getresponse().read()
for _ in range(count):
    connection.request("GET", target)
    response = connection.getresponse()
    response.read()
    assert response.status == 200 and response.getheader("X-Cache") == "HIT", (response.status, response.getheader("X-Cache"))
connection.close()
PY
}

# callgrind_run MODE N: total instructions (all threads) of one proxy run serving N hits.
callgrind_run() {
  local mode=$1 count=$2 out="$BENCH_TMP/cg-$1-$2" log="$BENCH_TMP/cg-$1-$2.log" pid line port
  # shellcheck disable=SC2086  # ACCESS_CALLGRIND_OPTS is split on purpose (e.g. "--dump-instr=yes")
  bench_start pid "$log" valgrind --tool=callgrind --separate-threads=yes ${ACCESS_CALLGRIND_OPTS:-} --callgrind-out-file="$out.%p" \
    "$CALLGRIND_BIN" run --config "$(config "$mode")" --threads 1 --admin-listen 127.0.0.1:0 --log-level warning
  line=$(bench_wait_line "$pid" "$log" 'breakwater: listening on http://' 120)
  port=$(bench_port_of "$line")
  hits "$port" "$count"
  bench_stop "$pid"
  # One file per thread (name ends in -NN, in the order the threads started); "totals:" is each
  # thread's instruction count. Prints "NN count" per thread.
  local file
  for file in "$out".*-*; do
    printf '%s %s\n' "${file##*-}" "$(awk '/^totals:/ { print $2 }' "$file")"
  done
}

# callgrind_per_hit MODE: instructions of one hit, start-up and warm-up cancelled out: all
# threads, and (to stderr) each thread's share.
callgrind_per_hit() {
  local low high total_low total_high
  low=$(callgrind_run "$1" "$N1")
  high=$(callgrind_run "$1" "$N2")
  total_low=$(awk '{ sum += $2 } END { print sum }' <<<"$low")
  total_high=$(awk '{ sum += $2 } END { print sum }' <<<"$high")
  [ -n "$total_low" ] && [ -n "$total_high" ] && [ "$total_high" -gt "$total_low" ] || bench_die "callgrind run of '$1' failed"
  printf '%-5s %12s Ir at N1  %12s Ir at N2  -> %8s Ir per hit; per thread:%s\n' "$1" "$total_low" "$total_high" \
    "$(( (total_high - total_low) / (N2 - N1) ))" \
    "$(join <(sort <<<"$low") <(sort <<<"$high") | awk -v n=$(( N2 - N1 )) '{ printf " %s %+d", $1, ($3 - $2) / n }')" >&2
  echo $(( (total_high - total_low) / (N2 - N1) ))
}

# CPU time (user + system, every thread: the log writer's write() included) per request: less
# disturbed by other processes than req/s, which they can halve.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# The log writer thread's share (its write() calls included): "user+system" ticks.
writer_ticks() {
  local task
  for task in /proc/"$1"/task/*; do
    [ "$(cat "$task/comm")" = breakwater-log ] && awk '{ print $14 + $15 }' "$task/stat" && return
  done
  echo 0
}
# System time of the whole process, to tell the kernel's share from the proxy's own code.
sys_ticks() { awk '{ print $15 }' "/proc/$1/stat"; }
# CPU 0's busy time (every process, interrupts and kernel threads such as writeback included):
# minus the proxy's own, what else ran on the loop's CPU (other builds too: noise
# unless the load is low).
cpu0_ticks() { awk '$1 == "cpu0" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))
per_request() { awk -v t=$(( $1 * TICK_US )) -v n="$2" 'BEGIN { printf "%.2f", (n > 0) ? t / n : 0 }'; }
# measure_run PID URL NAME: one wrk run of the hit against URL; sets MEASURED ("req/s cpu-us")
# and MEASURED_LINE (the figures as printed).
measure_run() {
  local pid=$1 url=$2 name=$3 before writer_before sys_before cpu0_before after writer_after sys_after cpu0_after
  local rps p50 p99 errors requests cpu writer system cpu0
  before=$(ticks "$pid") writer_before=$(writer_ticks "$pid") sys_before=$(sys_ticks "$pid") cpu0_before=$(cpu0_ticks)
  taskset -c 1 wrk -t1 -c"${ACCESS_CONNECTIONS:-50}" -d"${SECONDS_PER_RUN}s" --latency ${WRK_PACE:+-s "$WRK_PACE"} \
    "${url%/graphql}$HIT_TARGET" >"$BENCH_TMP/wrk-$name.txt"
  after=$(ticks "$pid") writer_after=$(writer_ticks "$pid") sys_after=$(sys_ticks "$pid") cpu0_after=$(cpu0_ticks)
  read -r rps p50 p99 errors < <(bench_parse_wrk "$BENCH_TMP/wrk-$name.txt")
  requests=$(awk '/requests in/ { print $1 }' "$BENCH_TMP/wrk-$name.txt")
  cpu=$(per_request $(( after - before )) "$requests")
  writer=$(per_request $(( writer_after - writer_before )) "$requests")
  system=$(per_request $(( sys_after - sys_before )) "$requests")
  cpu0=$(per_request $(( cpu0_after - cpu0_before )) "$requests")
  MEASURED="$rps $cpu"
  printf -v MEASURED_LINE '%8s req/s  cpu %6s us/req (system %s, log writer %s; CPU 0 busy %s)  p50 %s ms  p99 %s ms  errors %s  load %s' \
    "$rps" "$cpu" "$system" "$writer" "$cpu0" "$p50" "$p99" "$errors" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

WRK_PACE=""
if [ -n "${ACCESS_DELAY_MS:-}" ]; then
  [[ "$ACCESS_DELAY_MS" =~ ^[1-9][0-9]*$ ]] || bench_die "ACCESS_DELAY_MS must be a positive integer"
  WRK_PACE=$BENCH_TMP/pace.lua
  echo "function delay() return $ACCESS_DELAY_MS end" >"$WRK_PACE"
fi

# shellcheck disable=SC2086  # the lists are split on purpose
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [[ " $MODES " == *" callgrind "* ]]; then
  echo "== callgrind: instructions per hashed-GET hit (N1=$N1, N2=$N2 hits), load $(cut -d' ' -f1-3 /proc/loadavg)"
  declare -A PER_HIT
  for mode in off text json; do
    PER_HIT[$mode]=$(callgrind_per_hit "$mode")
  done
  for mode in text json; do
    awk -v on="${PER_HIT[$mode]}" -v off="${PER_HIT[off]}" -v m="$mode" \
      'BEGIN { printf "access log %-4s: +%d Ir per hit (+%.1f%% over off)\n", m, on - off, (on - off) * 100 / off }'
  done
fi

if [[ " $MODES " == *" wrk "* ]]; then
  echo "== wrk -c${ACCESS_CONNECTIONS:-50}: hashed-GET hits, access log off vs text to: $DESTS; $PAIRS alternating pairs of ${SECONDS_PER_RUN}s"
  declare -A PIDS URLS
  RUNS="off $DESTS"
  if [ -n "${ACCESS_COMPARE_BIN:-}" ]; then
    for dest in $DESTS; do RUNS+=" $dest@2"; done
  fi
  # start_runs SUFFIX: one proxy per run (off, each destination, the second build's), warmed up.
  start_runs() {
    local dest first_bin
    bench_start_breakwater "off$1" "$(config off)" 1 0 PIDS[off] URLS[off] OFF_ADMIN
    for dest in $DESTS; do
      bench_start_breakwater "on-$dest$1" "$(config text "$dest")" 1 0 PIDS[$dest] URLS[$dest] ON_ADMIN
    done
    if [ -n "${ACCESS_COMPARE_BIN:-}" ]; then
      first_bin=$BREAKWATER BREAKWATER=$ACCESS_COMPARE_BIN
      for dest in $DESTS; do
        sed "s|access-text.log|access-text-2.log|" "$(config text "$dest")" >"$BENCH_TMP/text-$dest-2.yaml"
        bench_start_breakwater "on-$dest-2$1" "$BENCH_TMP/text-$dest-2.yaml" 1 0 PIDS[$dest@2] URLS[$dest@2] ON_ADMIN
      done
      BREAKWATER=$first_bin
    fi
    for run in $RUNS; do
      url=${URLS[$run]}
      curl -sf -o /dev/null "$url" -H 'Content-Type: application/json' --data-binary "$REGISTER"
      taskset -c 1 wrk -t1 -c8 -d1s "${url%/graphql}$HIT_TARGET" >/dev/null
    done
  }
  start_runs ""
  declare -A RPS CPUS
  for pair in $(seq 1 "$PAIRS"); do
    # A process's own luck (where its buffers landed in memory, ...) persists for its life: with
    # ACCESS_RESTART=1 every pair gets new processes, so that the medians average it out.
    if [ "$pair" -gt 1 ] && [ "${ACCESS_RESTART:-0}" = 1 ]; then
      for run in $RUNS; do bench_stop "${PIDS[$run]}"; done
      start_runs "-$pair"
    fi
    for run in $RUNS; do
      url=${URLS[$run]} pid=${PIDS[$run]}
      measure_run "$pid" "$url" "$run"
      read -r rps cpu <<<"$MEASURED"
      RPS[$run]+=" $rps" CPUS[$run]+=" $cpu"
      printf 'pair %d %-6s %s\n' "$pair" "$run" "$MEASURED_LINE"
    done
  done
  off_median=$(median "${RPS[off]}") off_cpu=$(median "${CPUS[off]}")
  for dest in ${RUNS#off }; do
    awk -v off="$off_median" -v on="$(median "${RPS[$dest]}")" -v d="$dest" \
      'BEGIN { x = (off - on) * 100 / off; printf "median, to %-6s: off %.0f req/s, on %.0f req/s: on is %.1f%% %s\n", d, off, on, (x < 0 ? -x : x), (x >= 0) ? "slower" : "faster (noise)" }'
    awk -v off="$off_cpu" -v on="$(median "${CPUS[$dest]}")" -v d="$dest" \
      'BEGIN { printf "median CPU per request, to %-6s: off %.2f us, on %.2f us: on costs %+.1f%%\n", d, off, on, (on - off) * 100 / off }'
  done
  [[ " $DESTS " == *" file "* ]] && echo "access-log lines written to the file: $(wc -l <"$BENCH_TMP/access-text.log")"
fi

if [[ " $MODES " == *" toggle "* ]]; then
  # One process per round, its access log switched off and on by SIGHUP (logging.access_log is
  # reloadable): the off and on runs share the process's own luck, which otherwise persists
  # for its life and spreads fresh processes' CPU per request by 30 % and more. The phases go
  # off on on off ..., so that a drift of the machine's speed cancels too.
  TOGGLE_DEST=${DESTS%% *}
  PHASES=${ACCESS_PHASES:-4}
  echo "== toggle: hashed-GET hits, one proxy per round, access log off vs text to $TOGGLE_DEST by SIGHUP; $PAIRS rounds of $PHASES off/on pairs of ${SECONDS_PER_RUN}s"
  OFF_CONFIG=$(config off) ON_CONFIG=$(config text "$TOGGLE_DEST") LIVE_CONFIG=$BENCH_TMP/toggle.yaml
  case $TOGGLE_DEST in
    null | pipe) ON_LOG=/dev/null ;;  # nothing to count lines in
    *) ON_LOG=$(awk '/access_log:/ { print $2 }' "$ON_CONFIG") ;;
  esac
  log_lines() { if [ "$ON_LOG" = /dev/null ]; then echo 0; else { wc -l <"$ON_LOG"; } 2>/dev/null || echo 0; fi; }
  RATIOS="" RPS_RATIOS=""
  for round in $(seq 1 "$PAIRS"); do
    cp "$OFF_CONFIG" "$LIVE_CONFIG"
    bench_start_breakwater "toggle-$round" "$LIVE_CONFIG" 1 0 TOGGLE_PID TOGGLE_URL TOGGLE_ADMIN
    if [ -n "${ACCESS_WRITER_CPU:-}" ]; then
      for task in /proc/"$TOGGLE_PID"/task/*; do
        [ "$(cat "$task/comm")" = breakwater-log ] && taskset -pc "$ACCESS_WRITER_CPU" "${task##*/}" >/dev/null
      done
    fi
    curl -sf -o /dev/null "$TOGGLE_URL" -H 'Content-Type: application/json' --data-binary "$REGISTER"
    taskset -c 1 wrk -t1 -c8 -d1s "${TOGGLE_URL%/graphql}$HIT_TARGET" >/dev/null
    OFF_CPUS="" ON_CPUS="" OFF_RPS="" ON_RPS=""
    for phase in $(seq 1 "$PHASES"); do
      order="off on"
      [ $(( phase % 2 )) = 0 ] && order="on off"
      for mode in $order; do
        if [ "$mode" = on ]; then cp "$ON_CONFIG" "$LIVE_CONFIG"; else cp "$OFF_CONFIG" "$LIVE_CONFIG"; fi
        kill -HUP "$TOGGLE_PID"
        sleep 0.5
        lines_before=$(log_lines)
        measure_run "$TOGGLE_PID" "$TOGGLE_URL" "toggle-$mode"
        lines_after=$(log_lines)
        read -r rps cpu <<<"$MEASURED"
        # The switch took: lines grow while on (unless to /dev/null), never while off.
        if [ "$mode" = off ] && [ "$lines_after" != "$lines_before" ]; then bench_die "the access log still wrote while off (reload not applied?)"; fi
        if [ "$mode" = on ] && [ "$ON_LOG" != /dev/null ] && [ "$lines_after" = "$lines_before" ]; then bench_die "the access log wrote nothing while on (reload not applied?)"; fi
        if [ "$mode" = on ]; then ON_CPUS+=" $cpu" ON_RPS+=" $rps"; else OFF_CPUS+=" $cpu" OFF_RPS+=" $rps"; fi
        printf 'round %d phase %d %-3s %s\n' "$round" "$phase" "$mode" "$MEASURED_LINE"
      done
    done
    bench_stop "$TOGGLE_PID"
    ratio=$(awk -v on="$(median "$ON_CPUS")" -v off="$(median "$OFF_CPUS")" 'BEGIN { printf "%.4f", on / off }')
    rps_ratio=$(awk -v on="$(median "$ON_RPS")" -v off="$(median "$OFF_RPS")" 'BEGIN { printf "%.4f", on / off }')
    RATIOS+=" $ratio" RPS_RATIOS+=" $rps_ratio"
    awk -v r="$ratio" -v q="$rps_ratio" -v n="$round" -v off="$(median "$OFF_CPUS")" -v on="$(median "$ON_CPUS")" \
      'BEGIN { printf "round %d: CPU per request off %.2f us, on %.2f us: %+.1f%%; req/s on/off %.3f\n", n, off, on, (r - 1) * 100, q }'
  done
  awk -v r="$(median "$RATIOS")" -v q="$(median "$RPS_RATIOS")" -v d="$TOGGLE_DEST" -v all="$RATIOS" \
    'BEGIN { printf "median over rounds, to %s: CPU per request %+.1f%% (rounds:%s), req/s %+.1f%%\n", d, (r - 1) * 100, all, (q - 1) * 100 }'
fi

if [[ " $MODES " == *" side "* ]]; then
  # Two new proxies per round side by side on CPU 0, one with the log off, one on (to the first
  # of ACCESS_DESTS), each under its own paced wrk on CPU 1 for the same seconds: what slows the
  # machine down slows both at once (the toggle's off and on runs are seconds apart, and the
  # host's slow spells are longer than a run but shorter than a round). Paced (ACCESS_DELAY_MS),
  # both serve the same rate and CPU 0 is not saturated; unpaced, they share a saturated CPU 0.
  # Which one started first alternates by round. The on proxy's writer shares the CPU and its
  # caches with the off one, so this errs low by that much.
  SIDE_DEST=${DESTS%% *}
  echo "== side by side (${ACCESS_SIDE_SERVER:-breakwater}): hashed-GET hits, off and ${ACCESS_FORMAT:-text} to $SIDE_DEST at once, both on CPU 0; $PAIRS rounds of ${SECONDS_PER_RUN}s, wrk -c${ACCESS_CONNECTIONS:-50}${ACCESS_DELAY_MS:+ paced at one request per ${ACCESS_DELAY_MS} ms per connection}"
  OFF_CONFIG=$(config off) ON_CONFIG=$(config "${ACCESS_FORMAT:-text}" "$SIDE_DEST")
  case $SIDE_DEST in
    null | pipe) SIDE_LOG=/dev/null ;;  # nothing to count lines in
    *) SIDE_LOG=$(awk '/access_log:/ { print $2 }' "$ON_CONFIG") ;;
  esac
  SIDE_SERVER=${ACCESS_SIDE_SERVER:-breakwater}
  if [ "$SIDE_SERVER" = nginx ]; then
    # For scale: nginx's own access log, measured the same way. One worker answering the hit's
    # URL with `return 200` and a JSON body of the hit's size; "on" logs a line spelling the
    # same fields as Breakwater's text line to a file, buffered as nginx is usually run.
    NGINX=$(bench_nginx_bin)
    [ "$SIDE_DEST" = file ] || bench_die "ACCESS_SIDE_SERVER=nginx logs to a file only"
    SIDE_BODY=$(curl -sf -o /dev/null -w '%{size_download}' "$ORIGIN_URL" -H 'Content-Type: application/json' --data-binary "$REGISTER")
    SIDE_LOG=$BENCH_TMP/nginx-access.log
  fi
  # side_start MODE ROUND: starts the off or on server; sets SIDE_PID[MODE] (whose CPU counts),
  # SIDE_STOP[MODE] (what to stop) and SIDE_HIT[MODE] (the hit's URL).
  side_start() {
    local mode=$1 round=$2 dir port body cfg
    if [ "$SIDE_SERVER" = nginx ]; then
      dir="$BENCH_TMP/nginx-side-$round-$mode" port=$(bench_free_port)
      mkdir -p "$dir"/{client_body,proxy_temp,fastcgi,uwsgi,scgi}
      body=$(printf '{"data":{"launch":{"pad":"%*s"}}}' $(( SIDE_BODY > 40 ? SIDE_BODY - 30 : 10 )) "" | tr ' ' x)
      { echo "worker_processes 1;"; [ "$(id -u)" -eq 0 ] && echo "user root;"; nginx_preamble "$dir"
        cat <<EOF
    log_format bw '\$time_iso8601 access: client=\$remote_addr method=\$request_method status=\$status cache=HIT operation=\$arg_operationName hash=$(printf '%064d' 0) error_code=- duration_ms=\$request_time origin_status=- origin_ms=- bytes=\$body_bytes_sent request_id=\$request_id user_agent=\$http_user_agent client_name=\$http_apollographql_client_name client_version=\$http_apollographql_client_version';
    server {
        listen 127.0.0.1:$port;
        $([ "$mode" = on ] && echo "access_log $SIDE_LOG bw buffer=64k flush=1s;")
        location = /graphql { default_type application/json; return 200 '$body'; }
    }
}
EOF
      } >"$dir/nginx.conf"
      bench_start SIDE_NEW_PID "$dir/out.log" taskset -c 0 "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g "daemon off;"
      for _ in $(seq 1 50); do pgrep -P "$SIDE_NEW_PID" >/dev/null && break; sleep 0.1; done
      SIDE_STOP[$mode]=$SIDE_NEW_PID SIDE_PID[$mode]=$(pgrep -P "$SIDE_NEW_PID" | head -1)
      SIDE_HIT[$mode]="http://127.0.0.1:$port$HIT_TARGET"
    else
      if [ "$mode" = on ]; then cfg=$ON_CONFIG; else cfg=$OFF_CONFIG; fi
      bench_start_breakwater "side-$round-$mode" "$cfg" 1 0 SIDE_NEW_PID SIDE_NEW_URL SIDE_NEW_ADMIN
      curl -sf -o /dev/null "$SIDE_NEW_URL" -H 'Content-Type: application/json' --data-binary "$REGISTER"
      SIDE_PID[$mode]=$SIDE_NEW_PID SIDE_STOP[$mode]=$SIDE_NEW_PID SIDE_HIT[$mode]="${SIDE_NEW_URL%/graphql}$HIT_TARGET"
    fi
    taskset -c 1 wrk -t1 -c8 -d1s "${SIDE_HIT[$mode]}" >/dev/null
  }
  side_lines() { if [ "$SIDE_LOG" = /dev/null ]; then echo 0; else { wc -l <"$SIDE_LOG"; } 2>/dev/null || echo 0; fi; }
  RATIOS="" RPS_RATIOS=""
  for round in $(seq 1 "$PAIRS"); do
    order="off on"
    [ $(( round % 2 )) = 0 ] && order="on off"
    declare -A SIDE_PID SIDE_STOP SIDE_HIT
    for mode in $order; do side_start "$mode" "$round"; done
    declare -A BEFORE AFTER
    side_lines_before=$(side_lines)
    for mode in off on; do BEFORE[$mode]=$(ticks "${SIDE_PID[$mode]}"); done
    WRK_PIDS=""
    for mode in off on; do
      taskset -c 1 wrk -t1 -c"${ACCESS_CONNECTIONS:-50}" -d"${SECONDS_PER_RUN}s" --latency ${WRK_PACE:+-s "$WRK_PACE"} \
        "${SIDE_HIT[$mode]}" >"$BENCH_TMP/wrk-side-$mode.txt" &
      WRK_PIDS+=" $!"
    done
    # shellcheck disable=SC2086  # one pid per word
    wait $WRK_PIDS
    for mode in off on; do AFTER[$mode]=$(ticks "${SIDE_PID[$mode]}"); done
    sleep 0.3  # the writer's last batch
    if [ "$SIDE_LOG" != /dev/null ] && [ "$(side_lines)" = "$side_lines_before" ]; then bench_die "the access log wrote nothing while on"; fi
    declare -A CPU RPS
    for mode in off on; do
      read -r rps p50 p99 errors < <(bench_parse_wrk "$BENCH_TMP/wrk-side-$mode.txt")
      requests=$(awk '/requests in/ { print $1 }' "$BENCH_TMP/wrk-side-$mode.txt")
      CPU[$mode]=$(per_request $(( AFTER[$mode] - BEFORE[$mode] )) "$requests")
      RPS[$mode]=$rps
      printf 'round %d %-3s %8s req/s  cpu %6s us/req  p50 %s ms  p99 %s ms  errors %s  load %s\n' "$round" "$mode" "$rps" "${CPU[$mode]}" \
        "$p50" "$p99" "$errors" "$(cut -d' ' -f1-3 /proc/loadavg)"
    done
    bench_stop "${SIDE_STOP[off]}"
    bench_stop "${SIDE_STOP[on]}"
    ratio=$(awk -v on="${CPU[on]}" -v off="${CPU[off]}" 'BEGIN { printf "%.4f", on / off }')
    rps_ratio=$(awk -v on="${RPS[on]}" -v off="${RPS[off]}" 'BEGIN { printf "%.4f", on / off }')
    RATIOS+=" $ratio" RPS_RATIOS+=" $rps_ratio"
    awk -v r="$ratio" -v q="$rps_ratio" -v n="$round" 'BEGIN { printf "round %d: CPU per request on/off %+.1f%%; req/s on/off %.3f\n", n, (r - 1) * 100, q }'
  done
  awk -v r="$(median "$RATIOS")" -v q="$(median "$RPS_RATIOS")" -v d="$SIDE_DEST" -v all="$RATIOS" \
    'BEGIN { printf "median over rounds, side by side, to %s: CPU per request %+.1f%% (rounds:%s), req/s %+.1f%%\n", d, (r - 1) * 100, all, (q - 1) * 100 }'
fi

if [[ " $MODES " == *" perf "* ]]; then
  command -v perf >/dev/null || bench_die "perf is not installed (Debian: apt-get install linux-perf)"
  echo "== perf: the access log's share of the proxy's CPU (log ${ACCESS_PERF_LOG:-text}, to a file, ${SECONDS_PER_RUN}s of samples under wrk), load $(cut -d' ' -f1-3 /proc/loadavg)"
  bench_start_breakwater perf "$(config "${ACCESS_PERF_LOG:-text}")" 1 0 PERF_PID PERF_URL PERF_ADMIN
  curl -sf -o /dev/null "$PERF_URL" -H 'Content-Type: application/json' --data-binary "$REGISTER"
  bench_start WRK_PID "$BENCH_TMP/wrk-perf.txt" taskset -c 1 wrk -t1 -c50 -d"$((SECONDS_PER_RUN + 2))s" "${PERF_URL%/graphql}$HIT_TARGET"
  sleep 1
  # shellcheck disable=SC2086  # ACCESS_PERF_OPTS is split on purpose (e.g. "-g")
  perf record -e cpu-clock -F 2000 ${ACCESS_PERF_OPTS:-} -p "$PERF_PID" -o "$BENCH_TMP/perf.data" -- sleep "$SECONDS_PER_RUN" >/dev/null 2>&1
  wait "$WRK_PID" || true
  # Lines of "PCT% COMM [.] SYMBOL"; the loop's line-writing functions by name.
  perf report -i "$BENCH_TMP/perf.data" --no-children --sort comm,sym --stdio 2>/dev/null | awk '
    /^#/ || NF < 4 { next }
    {
      share = $1; sub("%", "", share); total += share
      if ($2 == "breakwater-log") { writer += share; next }
      if ($0 ~ /AccessLogLine|AccessLogRecord|LogLineBuffer|LogTimeCache|LogLineScan|ProxyLogBuffer|ProxyLogControl|ByteCursorV(14writeTextValue|15writeJSONString|8writeHex|17writeMilliseconds|18writeSignedDecimal|12writeLiteral)/) lines += share
    }
    END {
      printf "samples: log writer thread %.1f%%, writing lines on the loop %.1f%%: the access log %.1f%% of the proxy CPU\n", writer, lines, writer + lines
      printf "(the wall-clock read of each line is not separable from the duration clock: clock_gettime is counted in neither)\n"
    }'
  grep Requests/sec "$BENCH_TMP/wrk-perf.txt" || true
fi

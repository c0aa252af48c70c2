#!/usr/bin/env bash
# Soak: every fault at once, every answer checked (RELIABILITY.md, "Soak"). On loopback, with
# ephemeral ports: the demo origin with its test controls, a Redis master and replica with a
# Sentinel, a CDN purge API stand-in (Tests/fixtures/cdn_api_recorder.py) and two Breakwater
# proxies sharing that Redis through the Sentinel (signed entries, HTTP/2, a handover socket, the
# CDN target). Clients over HTTP/1.1 and HTTP/2 check every answer (the body asked for, each user's
# own answers, no purged value past its bound) while faults come at random moments: origin
# restarts and slowdowns, Redis master restarts and pauses, Sentinel failovers, SIGHUP reloads,
# `run --takeover` upgrades, HTTP/2 floods (Tests/fixtures/h2_attacks.py), the CDN down and back.
# Ends with one table (also in soak-summary.txt) and exits 1 when a row that must be 0 is not.
# RSS, fds and threads of each proxy go to soak.csv every SOAK_INTERVAL seconds, plotted as soak.png.
#
# Usage: make soak [MINUTES=30]   (or DURATION=90s / 30m / 1h; or: bash scripts/soak.sh 30m)
#   BREAKWATER_BIN  binary (default .build/release/breakwater if built, else .build/debug/breakwater)
#   SOAK_OUT        folder for soak.csv, soak.png, soak-summary.txt and the logs (default .build/soak)
#   SOAK_INTERVAL   seconds between samples (default 5)
#   SOAK_ARGS       more options for scripts/soak/soak.py (--mean-gap, --rate, --workers, --users, --seed)
set -euo pipefail

duration=${1:-${DURATION:-${MINUTES:-30}m}}
bin=${BREAKWATER_BIN:+$(realpath -m "$BREAKWATER_BIN")}
out=$(realpath -m "${SOAK_OUT:-.build/soak}")
cd "$(dirname "$0")/.."
if [ -z "$bin" ]; then
  bin=.build/debug/breakwater
  [ -x .build/release/breakwater ] && bin=.build/release/breakwater
fi
[ -x "$bin" ] || { echo "soak: no binary at $bin (run swift build)" >&2; exit 1; }
scripts/install-deps.sh gnuplot-nox python3 curl redis-server redis-tools openssl
scripts/install-python-deps.sh

seconds=$(python3 - "$duration" <<'PY'
import re, sys
m = re.fullmatch(r"(\d+)(s|m|h)?", sys.argv[1])
if not m: sys.exit("DURATION must look like 90s, 30m or 1h (MINUTES a number)")
print(int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 60}[m.group(2)])
PY
)
mkdir -p "$out"
rm -f "$out"/*.log
soak_pid=
cleanup() {
  # soak.py stops every part it started when it ends or is signalled; this covers an interrupt.
  if [ -n "$soak_pid" ] && kill -0 "$soak_pid" 2>/dev/null; then
    kill -TERM "$soak_pid" 2>/dev/null || true
    wait "$soak_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT INT TERM

echo "soak: $bin for $duration, output in $out"
status=0
PYTHONDONTWRITEBYTECODE=1 python3 scripts/soak/soak.py "$bin" --seconds "$seconds" --out "$out" --interval "${SOAK_INTERVAL:-5}" \
  ${SOAK_ARGS:-} &
soak_pid=$!
wait "$soak_pid" || status=$?
soak_pid=
[ -s "$out/soak.csv" ] && gnuplot -e "csv='$out/soak.csv'; png='$out/soak.png'" scripts/soak/plot.gp && echo "soak: $out/soak.csv, $out/soak.png"
exit $status

#!/usr/bin/env bash
# Soak: runs the real proxy in front of the demo origin for DURATION (e.g. 30m, 90s) under mixed
# traffic (hits, misses, registrations, mutations, purges, bad requests) against a small cache and
# registry, samples the proxy's RSS and open fds every SOAK_INTERVAL seconds into a CSV, and plots
# them as a PNG (gnuplot). Fails if /healthz stops answering or a request crashes the proxy.
#
# Usage: make soak DURATION=30m            (or: bash scripts/soak.sh 30m)
#   BREAKWATER_BIN  binary (default .build/release/breakwater if built, else .build/debug/breakwater)
#   SOAK_OUT        folder for soak.csv, soak.png and the logs (default .build/soak)
#   SOAK_RATE       target requests per second, all kinds together (default 60: the machine is shared)
#   SOAK_INTERVAL   seconds between samples (default 5)
set -euo pipefail

duration=${1:-${DURATION:-5m}}
bin=${BREAKWATER_BIN:+$(realpath -m "$BREAKWATER_BIN")}
out=$(realpath -m "${SOAK_OUT:-.build/soak}")
cd "$(dirname "$0")/.."
if [ -z "$bin" ]; then
  bin=.build/debug/breakwater
  [ -x .build/release/breakwater ] && bin=.build/release/breakwater
fi
[ -x "$bin" ] || { echo "soak: no binary at $bin (run swift build)" >&2; exit 1; }
scripts/install-deps.sh gnuplot-nox python3 curl

seconds=$(python3 - "$duration" <<'PY'
import re, sys
m = re.fullmatch(r"(\d+)(s|m|h)?", sys.argv[1])
if not m: sys.exit("DURATION must look like 90s, 30m or 1h")
print(int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)])
PY
)
mkdir -p "$out"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

wait_for_port() { # log file, text before the URL
  for _ in $(seq 1 200); do
    port=$(grep -Eo "$2 https?://[^ ]*:[0-9]+" "$1" 2>/dev/null | head -1 | grep -Eo '[0-9]+$' || true)
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.1
  done
  echo "soak: no '$2' line in $1" >&2; cat "$1" >&2; return 1
}

"$bin" demo --origin-only --test-controls --origin-listen 127.0.0.1:0 --threads 1 --log-level warning \
  >"$out/origin.log" 2>&1 &
pids+=($!)
origin_port=$(wait_for_port "$out/origin.log" "demo origin listening on")

cat >"$work/config.yaml" <<YAML
persisted_queries:
  max_entries: 2000
  store: $work/registry.log
cache:
  max_bytes: 256KiB
  stale_while_revalidate: 2s
  stale_if_error: 10s
  rules:
    - operation: GetLaunches
      ttl: 20s
    - operation: GetLaunch
      ttl: 5s
YAML
"$bin" run --config "$work/config.yaml" --listen 127.0.0.1:0 --origin "http://127.0.0.1:$origin_port/graphql" \
  --threads 2 --admin-listen 127.0.0.1:0 --log-level warning >"$out/proxy.log" 2>&1 &
proxy_pid=$!
pids+=($proxy_pid)
proxy_port=$(wait_for_port "$out/proxy.log" "listening on")
admin_port=$(grep -Eo "admin listening on http://[^ ]*:[0-9]+" "$out/proxy.log" | grep -Eo '[0-9]+$')
echo "soak: proxy pid $proxy_pid on :$proxy_port (admin :$admin_port), origin :$origin_port, $duration"

python3 scripts/soak/drive.py --port "$proxy_port" --admin-port "$admin_port" --pid "$proxy_pid" \
  --seconds "$seconds" --rate "${SOAK_RATE:-60}" --interval "${SOAK_INTERVAL:-5}" \
  --csv "$out/soak.csv" --summary "$out/soak-summary.txt"

gnuplot -e "csv='$out/soak.csv'; png='$out/soak.png'" scripts/soak/plot.gp
echo "soak: $out/soak.csv, $out/soak.png"
cat "$out/soak-summary.txt"

#!/usr/bin/env bash
# Breakwater's memory (README "Performance"): called by bench/run.sh, or on its own.
#
# (i)  resident memory with BENCH_MEMORY_ENTRIES (default 100000) cached answers of ~1 KiB:
#      VmRSS against the payload (the sum of the stored body sizes); target RSS/payload <= 1.3.
# (ii) flat memory under churn: cache.max_bytes 8MiB, BENCH_CHURN_SECONDS (default 120) of
#      distinct-key traffic, VmRSS sampled every 10 s; growth from the 30 s sample to the last
#      should be ~0.
#
# Environment: BENCH_BIN (binary; else built), BENCH_MEMORY_ENTRIES, BENCH_CHURN_SECONDS,
# BENCH_MD_OUT (a Markdown file to append the results to), BENCH_KEEP_TMP=1,
# BENCH_MEMORY_PAGE (launches per answer, default 5: ~1 KiB answers, the headline; 23 gives ~4 KiB,
# a second, labelled line: not the headline figure).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ENTRIES=${BENCH_MEMORY_ENTRIES:-100000}
PAGE=${BENCH_MEMORY_PAGE:-5}
CHURN_SECONDS=${BENCH_CHURN_SECONDS:-120}
SAMPLE_EVERY=10
[[ "$ENTRIES" =~ ^[1-9][0-9]*$ ]] || bench_die "BENCH_MEMORY_ENTRIES must be a positive integer"
[[ "$CHURN_SECONDS" =~ ^[1-9][0-9]*$ ]] || bench_die "BENCH_CHURN_SECONDS must be a positive integer"
[[ "$PAGE" =~ ^[1-9][0-9]*$ ]] || bench_die "BENCH_MEMORY_PAGE must be a positive integer"

bench_install_traps
if [ -z "${BENCH_BIN:-}" ]; then bench_install_all; fi
bench_build

# The unknown id makes each key distinct (the origin answers null for it, and `launches` pads
# the body to about 1 KiB without depending on the id).
DOCUMENT='query FillLaunch($id: ID!) { probe: launch(id: $id) { id site } pad: launches(pageSize: '"$PAGE"') { cursor hasMore launches { id site mission { name missionPatch } rocket { id name type } } } }'
jq -cn --arg q "$DOCUMENT" '{query: $q, operationName: "FillLaunch", variables: {id: "k@ID@"}}' >"$BENCH_TMP/template.json"

bench_start_origin ORIGIN_PID ORIGIN_URL

# config NAME MAX_BYTES: a config caching FillLaunch for an hour.
config() {
  cat >"$BENCH_TMP/$1.yaml" <<EOF
server:
  listen: "127.0.0.1:0"
origin:
  url: "$ORIGIN_URL"
logging:
  access_log: off   # as nginx runs here: the bench measures serving, not logging
persisted_queries:
  store: ""
cache:
  max_bytes: $2
  rules:
    - operation: FillLaunch
      ttl: 1h
EOF
  echo "$BENCH_TMP/$1.yaml"
}

stats() { curl -sf "$1/stats"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

# --- (i) 100k entries -----------------------------------------------------------------------------

bench_start_breakwater memory-fill "$(config memory-fill 1GiB)" 1 "" BW_PID BW_URL BW_ADMIN
sed 's/@ID@/probe/' "$BENCH_TMP/template.json" >"$BENCH_TMP/probe.json"
curl -sf -o "$BENCH_TMP/probe-body.json" "$BW_URL" -H 'Content-Type: application/json' --data-binary @"$BENCH_TMP/probe.json"
BODY_BYTES=$(wc -c <"$BENCH_TMP/probe-body.json")
grep -q '"errors"' "$BENCH_TMP/probe-body.json" && bench_die "FillLaunch answers with errors: $(cat "$BENCH_TMP/probe-body.json")"
RSS_EMPTY=$(bench_rss_kib "$BW_PID")
# VmRSS's two parts: anonymous memory (the heap: entries, indexes) and file pages (the binary's
# and the shared libraries' code and data mapped from the page cache, shared and reclaimable).
rss_part() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
ANON_EMPTY=$(rss_part "$BW_PID" RssAnon)
FILE_EMPTY=$(rss_part "$BW_PID" RssFile)
bench_log "memory (i): filling $ENTRIES entries of $BODY_BYTES bytes through $BW_URL"

FILL_SECONDS_MAX=900
started=$(date +%s)
bench_start WRK_PID "$BENCH_TMP/fill-wrk.txt" wrk -t2 -c32 -d"${FILL_SECONDS_MAX}s" \
  -s "$BENCH_DIR/lua/distinct.lua" "$BW_URL" -- "$BENCH_TMP/template.json" "$ENTRIES" 2
last=-1
still=0
while :; do
  sleep 1
  filled=$(stats "$BW_ADMIN" | jq -r .cache.entries)
  # 1 for the probe: the fill itself adds ENTRIES keys.
  [ "$filled" -ge $((ENTRIES + 1)) ] && break
  bench_alive "$WRK_PID" || { cat "$BENCH_TMP/fill-wrk.txt" >&2; bench_die "wrk ended with $filled entries"; }
  if [ "$filled" = "$last" ]; then still=$((still + 1)); else still=0; fi
  [ "$still" -lt 15 ] || bench_die "the fill is stuck at $filled entries (evictions? $(stats "$BW_ADMIN" | jq -c .cache))"
  last=$filled
done
bench_stop "$WRK_PID"
FILL_SECONDS=$(($(date +%s) - started))
sleep 1
RSS_FULL=$(bench_rss_kib "$BW_PID")
ANON_FULL=$(rss_part "$BW_PID" RssAnon)
FILE_FULL=$(rss_part "$BW_PID" RssFile)
FILL_STATS=$(stats "$BW_ADMIN")
CACHED=$(jq -r .cache.entries <<<"$FILL_STATS")
CACHE_BYTES=$(jq -r .cache.bytes <<<"$FILL_STATS")
EVICTIONS=$(jq -r .cache.evictions <<<"$FILL_STATS")
PAYLOAD=$((CACHED * BODY_BYTES))
RATIO=$(awk -v r="$RSS_FULL" -v p="$PAYLOAD" 'BEGIN { printf "%.2f", r * 1024 / p }')
ANON_RATIO=$(awk -v a="$ANON_FULL" -v p="$PAYLOAD" 'BEGIN { printf "%.2f", a * 1024 / p }')
PER_ENTRY=$(awk -v a="$ANON_FULL" -v e="$ANON_EMPTY" -v n="$CACHED" -v b="$BODY_BYTES" 'BEGIN { printf "%.0f", (a - e) * 1024 / n - b }')
NET_RATIO=$(awk -v r="$RSS_FULL" -v e="$RSS_EMPTY" -v p="$PAYLOAD" 'BEGIN { printf "%.2f", (r - e) * 1024 / p }')
ACCOUNTED=$(awk -v b="$CACHE_BYTES" -v p="$PAYLOAD" 'BEGIN { printf "%.2f", b / p }')
bench_stop "$BW_PID"

# --- (ii) churn -----------------------------------------------------------------------------------

bench_start_breakwater memory-churn "$(config memory-churn 8MiB)" 1 "" BW_PID BW_URL BW_ADMIN
bench_log "memory (ii): ${CHURN_SECONDS}s of distinct keys into an 8MiB cache, VmRSS every ${SAMPLE_EVERY}s"
bench_start WRK_PID "$BENCH_TMP/churn-wrk.txt" wrk -t2 -c32 -d"$((CHURN_SECONDS + 30))s" \
  -s "$BENCH_DIR/lua/distinct.lua" "$BW_URL" -- "$BENCH_TMP/template.json" 0 2
SAMPLES=()
SAMPLE_LINES=()
CHURN_REQUESTS="?"
OVER_BOUND=0
started=$(date +%s)
for ((t = SAMPLE_EVERY; t <= CHURN_SECONDS; t += SAMPLE_EVERY)); do
  sleep $((started + t - $(date +%s) > 0 ? started + t - $(date +%s) : 0))
  bench_alive "$WRK_PID" || { cat "$BENCH_TMP/churn-wrk.txt" >&2; bench_die "wrk ended early"; }
  rss=$(bench_rss_kib "$BW_PID")
  s=$(stats "$BW_ADMIN")
  SAMPLES+=("$t:$rss")
  line=$(jq -r --arg t "$t" --arg rss "$(mib "$rss")" \
    '"\($t)s  VmRSS \($rss)  cache.bytes \(.cache.bytes)  entries \(.cache.entries)  evictions \(.cache.evictions)  requests \(.requests)"' <<<"$s")
  SAMPLE_LINES+=("$line")
  CHURN_REQUESTS=$(jq -r .requests <<<"$s")
  bench_log "  $line"
  [ "$(jq -r '.cache.bytes <= .cache.max_bytes' <<<"$s")" = "true" ] || OVER_BOUND=$((OVER_BOUND + 1))
done
bench_stop "$WRK_PID"
bench_stop "$BW_PID"

# Growth from the sample at 30 s (the middle one on runs shorter than 40 s) to the last.
REF_INDEX=$((30 / SAMPLE_EVERY - 1))
if [ "$CHURN_SECONDS" -lt 40 ]; then REF_INDEX=$(((${#SAMPLES[@]} - 1) / 2)); fi
if [ ${#SAMPLES[@]} -ge 2 ]; then
  REF=${SAMPLES[$REF_INDEX]}
  LAST=${SAMPLES[-1]}
  GROWTH_KIB=$((${LAST#*:} - ${REF#*:}))
  GROWTH="$(awk -v g="$GROWTH_KIB" 'BEGIN { printf "%+.1f MiB", g / 1024 }') from ${REF%%:*}s to ${LAST%%:*}s"
else
  GROWTH_KIB=0
  GROWTH="n/a (fewer than 2 samples: raise BENCH_CHURN_SECONDS)"
fi

report() {
  echo "## Memory"
  echo
  echo "(i) $CACHED cached answers of $BODY_BYTES bytes (filled in ${FILL_SECONDS}s, $EVICTIONS evictions):"
  echo
  echo "| figure | value |"
  echo "|---|---:|"
  echo "| VmRSS, empty cache | $(mib "$RSS_EMPTY") |"
  echo "| VmRSS, full | $(mib "$RSS_FULL") |"
  echo "| payload (entries x body size) | $(mib $((PAYLOAD / 1024))) |"
  echo "| cache.bytes (payload + accounted overhead) | $(mib $((CACHE_BYTES / 1024))) ($ACCOUNTED x payload) |"
  echo "| **RSS / payload** (target <= 1.3) | **$RATIO** |"
  echo "| (RSS - empty RSS) / payload | $NET_RATIO |"
  echo "| of VmRSS: anonymous (RssAnon), empty / full | $(mib "$ANON_EMPTY") / $(mib "$ANON_FULL") ($ANON_RATIO x payload) |"
  echo "| of VmRSS: file pages (RssFile: code and data mapped from the binary and libraries), empty / full | $(mib "$FILE_EMPTY") / $(mib "$FILE_FULL") |"
  echo "| anonymous bytes per entry beyond its body | $PER_ENTRY |"
  echo
  echo "RSS / payload <= 1.3: $(awk -v r="$RATIO" 'BEGIN { print (r <= 1.3 ? "yes" : "NO") }')"
  echo
  echo "(ii) churn: cache.max_bytes 8MiB, ${CHURN_SECONDS}s of distinct keys ($CHURN_REQUESTS requests), VmRSS every ${SAMPLE_EVERY}s:"
  echo
  echo '```'
  local line
  for line in "${SAMPLE_LINES[@]}"; do echo "$line"; done
  echo '```'
  echo
  echo "growth: **$GROWTH** (should be ~0: $(awk -v g="${GROWTH_KIB:-0}" 'BEGIN { print (g <= 1024 ? "yes, within 1 MiB" : "NO, over 1 MiB") }')); samples with cache.bytes over max_bytes: $OVER_BOUND"
}

echo
report
if [ -n "${BENCH_MD_OUT:-}" ]; then
  echo >>"$BENCH_MD_OUT"
  report >>"$BENCH_MD_OUT"
fi

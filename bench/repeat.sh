#!/usr/bin/env bash
# `make bench-repeat`: bench/run.sh BENCH_REPEAT times, each with new processes, and the median of
# every row's ratio to nginx over the repetitions.
#
# Why: a process's speed persists for its life. Fresh proxies of one binary, same config, same
# pinning, ran the same hit at 16.9-24.8 us of CPU per request (2026-11-25; with ASLR off too, so
# not the virtual layout), and nginx's workers vary alike. bench/run.sh keeps its processes for all
# of its BENCH_RUNS, so its median cannot average that luck out; a median over repetitions can.
#   BENCH_REPEAT=7        repetitions (each: BENCH_RUNS=1, memory skipped)
#   BENCH_ROWS="e f"      rows to measure (default: all); BENCH_DURATION as for bench/run.sh
#   BENCH_BIN=PATH        the binary (default: built once, then reused by every repetition)
# Prints one line per repetition (req/s ratio and p99 ratio of each row) and the medians.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPEAT=${BENCH_REPEAT:-7}
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || bench_die "BENCH_REPEAT must be a positive integer"

bench_install_traps
bench_build
OUT=$BENCH_TMP/repeat
mkdir -p "$OUT"

# ratios FILE: "row rps_ratio p99_ratio" for each Breakwater row of one run's Markdown table, and
# "(a)/ceiling" for (a)'s Breakwater row over nginx's `return 200` when the run measured both.
ratios() {
  awk -F' *[|] *' '$2 ~ /^[(][a-l][)]/ && $3 ~ /^breakwater/ && $7 != "" {
    split($2, label, " "); print label[1], $7, $8 }
    $2 ~ /^[(]a[)]/ && $3 ~ /^breakwater/ { hit = $4; hitP99 = $6 + 0 }
    $2 ~ /^ceiling/ { ceiling = $4; ceilingP99 = $6 + 0 }
    END { if (hit > 0 && ceiling > 0) printf "(a)/ceiling %.2f %.2f\n", hit / ceiling, hitP99 / ceilingP99 }' "$1"
}

for repetition in $(seq 1 "$REPEAT"); do
  BENCH_BIN=$BREAKWATER BENCH_RUNS=1 BENCH_SKIP_MEMORY=1 BENCH_RESULT_MD="$OUT/run-$repetition.md" \
    bash "$BENCH_DIR/run.sh" >"$OUT/run-$repetition.txt" 2>&1 ||
    { tail -n 20 "$OUT/run-$repetition.txt" >&2; bench_die "repetition $repetition failed"; }
  ratios "$OUT/run-$repetition.md" >"$OUT/ratios-$repetition.txt"
  printf 'repetition %d (load %s):' "$repetition" "$(cut -d' ' -f1-3 /proc/loadavg)"
  awk '{ printf "  %s %sx (p99 %sx)", $1, $2, $3 }' "$OUT/ratios-$repetition.txt"
  echo
done

echo
echo "median over $REPEAT repetitions, each with new processes (Breakwater / nginx; p99: lower is better):"
cat "$OUT"/ratios-*.txt | awk '
  { rps[$1] = rps[$1] " " $2; p99[$1] = p99[$1] " " $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  function median(list,   v, k, i, j, t) {
    k = split(list, v, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  END { for (i = 1; i <= n; i++) printf "  %s req/s %.2fx (runs:%s), p99 %.2fx (runs:%s)\n", order[i], median(rps[order[i]]), rps[order[i]], median(p99[order[i]]), p99[order[i]] }'

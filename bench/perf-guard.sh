#!/usr/bin/env bash
# `make perf-guard`: CI's guard on the hot paths. Counts instructions per request with callgrind
# (bench/callgrind.sh: a release build, fixed request sequences on one connection) for each
# scenario of bench/perf-budgets.txt and fails when one costs more than its budget by over
# PERF_GUARD_TOLERANCE percent (10). Instruction counts do not move with the machine's load, so
# the guard holds on a shared CI machine where wrk figures would not.
#   PERF_GUARD_REQUESTS=1000   requests counted per scenario
#   PERF_GUARD_TOLERANCE=10    percent over budget that fails
#   PERF_GUARD_RECORD=1        write the measured counts as the new budgets (a deliberate change:
#                              commit the file with the reason in the message)
#   BENCH_BIN=PATH             count this binary instead of building .build/release/breakwater
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

budgets=bench/perf-budgets.txt
tolerance=${PERF_GUARD_TOLERANCE:-10}
scenarios=$(awk '!/^#/ && NF >= 2 {print $1}' "$budgets" | tr '\n' ' ')
output=$(mktemp)
trap 'rm -f "$output"' EXIT

CALLGRIND_SCENARIOS="$scenarios" CALLGRIND_TOP=0 CALLGRIND_REQUESTS="${PERF_GUARD_REQUESTS:-1000}" \
  bash bench/callgrind.sh | tee "$output"

if [ "${PERF_GUARD_RECORD:-0}" = "1" ]; then
  {
    grep '^#' "$budgets"
    awk '/ instructions per request / {printf "%-10s %s\n", $1, $2}' "$output"
  } >"$budgets.new"
  mv "$budgets.new" "$budgets"
  echo "perf-guard: budgets recorded in $budgets"
  exit 0
fi

failed=0
printf '\n%-10s %10s %10s %8s  %s\n' scenario budget measured change verdict
for scenario in $scenarios; do
  budget=$(awk -v s="$scenario" '$1 == s {print $2}' "$budgets")
  measured=$(awk -v s="$scenario" '$1 == s && / instructions per request / {print $2}' "$output")
  if [ -z "$measured" ]; then
    printf '%-10s %10s %10s %8s  %s\n' "$scenario" "$budget" - - "NOT MEASURED"
    failed=1
    continue
  fi
  change=$(awk -v m="$measured" -v b="$budget" 'BEGIN {printf "%+.1f%%", (m - b) * 100 / b}')
  if awk -v m="$measured" -v b="$budget" -v t="$tolerance" 'BEGIN {exit !(m > b * (1 + t / 100))}'; then
    verdict="OVER BUDGET (more than +$tolerance%)"
    failed=1
  else
    verdict=ok
  fi
  printf '%-10s %10s %10s %8s  %s\n' "$scenario" "$budget" "$measured" "$change" "$verdict"
done
[ "$failed" -eq 0 ] && echo "perf-guard: every path within budget" || echo "perf-guard: FAILED"
exit "$failed"

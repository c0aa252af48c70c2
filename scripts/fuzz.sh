#!/usr/bin/env bash
# Builds the libFuzzer harnesses of Fuzz/Harnesses and the HTTP/1.1 request and response parsers'
# (Fuzz/HTTP1RequestParser, Fuzz/HTTP1ResponseParser) with -sanitize=fuzzer,address into
# .build-fuzz (FUZZ_SCRATCH overrides it) and runs each for FUZZ_SECONDS (default 60) from its
# committed seed corpus and dictionary.
# Usage: scripts/fuzz.sh [harness...]   (default: all; names as in Fuzz/Harnesses, HTTP1RequestParser,
# HTTP1ResponseParser)
# The growing corpus and any crash input stay under the scratch folder (ignored); a crash fails the run.
# Prints one line per harness: executions, coverage (libFuzzer's cov: and ft:) and corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
SCRATCH=${FUZZ_SCRATCH:-.build-fuzz}
if [ "$#" -gt 0 ]; then HARNESSES=("$@"); else HARNESSES=($(ls Fuzz/Harnesses) HTTP1RequestParser HTTP1ResponseParser); fi

# seeds HARNESS: its committed corpus folder and dictionary.
seeds() {
    if [ "$1" = HTTP1RequestParser ] || [ "$1" = HTTP1ResponseParser ]; then
        echo "Fuzz/$1/Corpus Fuzz/$1/http1.dict"
    else
        echo "Fuzz/Corpus/$1 Fuzz/Dictionaries/$1.dict"
    fi
}

export BREAKWATER_FUZZ=1
mkdir -p "$SCRATCH"
build_flags=(--scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address)
# BREAKWATER_FUZZ=1 shapes the package as the core plus the harnesses: one build makes every one.
echo "== building the fuzz harnesses (${HARNESSES[*]})"
started=$(date +%s)
if ! "$SWIFT" build "${build_flags[@]}" >"$SCRATCH/build.log" 2>&1; then
    tail -30 "$SCRATCH/build.log"
    echo "build of the fuzz harnesses failed"
    exit 1
fi
echo "== built in $(( $(date +%s) - started ))s"
for harness in "${HARNESSES[@]}"; do
    test -x "$SCRATCH/debug/Fuzz$harness" || { echo "no $SCRATCH/debug/Fuzz$harness after the build"; exit 1; }
done

status=0
summary=()
for harness in "${HARNESSES[@]}"; do
    corpus="$SCRATCH/corpus/$harness"
    crashes="$SCRATCH/crashes/$harness"
    mkdir -p "$corpus" "$crashes"
    log="$SCRATCH/fuzz-$harness.log"
    echo "== fuzzing $harness for ${SECONDS_PER_TARGET}s"
    # LeakSanitizer stays on (ASan's default on Linux); -rss_limit_mb bounds a runaway input.
    read -r seed_corpus dictionary < <(seeds "$harness")
    if ! "$SCRATCH/debug/Fuzz$harness" "$corpus" "$seed_corpus" \
        -dict="$dictionary" -max_total_time="$SECONDS_PER_TARGET" \
        -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
        >"$log" 2>&1; then
        echo "!! Fuzz$harness found a crash; input and log: $crashes, $log"
        tail -40 "$log"
        status=1
    fi
    executions=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    coverage=$(echo "$last" | grep -Eo 'cov: [0-9]+' | grep -Eo '[0-9]+' || echo "?")
    features=$(echo "$last" | grep -Eo 'ft: [0-9]+' | grep -Eo '[0-9]+' || echo "?")
    corpus_size=$(echo "$last" | grep -Eo 'corp: [0-9]+' | grep -Eo '[0-9]+' || echo "?")
    summary+=("$(printf '%-20s %10s execs %6s cov %6s ft %5s corpus' "$harness" "$executions" "$coverage" "$features" "$corpus_size")")
done
echo "== fuzz summary (${SECONDS_PER_TARGET}s each)"
printf '%s\n' "${summary[@]}"
exit $status

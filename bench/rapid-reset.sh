#!/usr/bin/env bash
# What HTTP/2 rapid reset costs a legitimate client (RELIABILITY.md, "Threat model"): its misses'
# latency alone, then under 10 connections at a time each opening and resetting 1,000 streams of
# distinct misses (bench/rapid-reset.py).
#
# Environment: BENCH_BIN (skip the build), BENCH_SECONDS (20 per phase).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bench_install_traps
"$REPO_DIR/scripts/install-deps.sh"
"$REPO_DIR/scripts/install-python-deps.sh"
bench_build
python3 "$REPO_DIR/bench/rapid-reset.py" "$BREAKWATER" --seconds "${BENCH_SECONDS:-20}"

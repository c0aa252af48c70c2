#!/usr/bin/env bash
# What a restart or an upgrade costs under load (docs/OPERATING.md, "Restarts and upgrades"): a
# stop and start, the same with the cache snapshot, a restart with the sockets held by
# systemd-socket-activate, and a `run --takeover`, each under a load that checks every answer
# (bench/restart.py); then the time to /readyz with a snapshot of BENCH_ENTRIES entries.
#
# Environment: BENCH_BIN (skip the build), BENCH_ENTRIES (100000).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bench_install_traps
bench_install_packages nghttp2-client systemd
"$REPO_DIR/scripts/install-deps.sh"
bench_build
python3 "$REPO_DIR/bench/restart.py" "$BREAKWATER" --entries "${BENCH_ENTRIES:-100000}"

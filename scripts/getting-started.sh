#!/usr/bin/env bash
# docs/GETTING-STARTED.md as a test: its commands run as written, in an empty folder, against the
# built binary, and what they print is compared with the output the page shows (how the page is
# read, the placeholders and the blocks it skips: scripts/getting-started.py). Part of `make test`.
# Usage: scripts/getting-started.sh [BINARY]   (default .build/debug/breakwater, built when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/debug/breakwater}"
[ -x "$binary" ] || swift build --product breakwater >/dev/null
exec python3 scripts/getting-started.py "$binary" docs/GETTING-STARTED.md

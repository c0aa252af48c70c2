#!/usr/bin/env bash
# The differential test of the HTTP/1.1 request parser against llhttp (Node.js's parser, through
# PyPI's httptools): installs httptools in a venv under .build-http1-diff, builds http1-verdict,
# and runs differential.py (seconds). Fails on any disagreement Breakwater's own rules do not decide.
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFT=${SWIFT:-swift}
VENV=.build-http1-diff/venv
if ! "$VENV/bin/python" -c "import httptools" 2>/dev/null; then
    python3 -m venv "$VENV" 2>/dev/null || { apt-get install -y python3-venv >/dev/null && python3 -m venv "$VENV"; }
    "$VENV/bin/pip" install --quiet "httptools>=0.6"
fi
"$SWIFT" build --product http1-verdict 2>&1 | grep -E "error|Build complete" || true
VERDICT="$("$SWIFT" build --product http1-verdict --show-bin-path)/http1-verdict"
"$VENV/bin/python" Fuzz/HTTP1Differential/differential.py "$VERDICT" "$@"

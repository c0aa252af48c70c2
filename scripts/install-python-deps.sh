#!/usr/bin/env bash
# Installs the Python packages the tests use (the Prometheus text parser for the /metrics
# test), when missing. Without pip it says so and leaves the test to skip.
set -euo pipefail

python3 -c 'import prometheus_client' 2>/dev/null && exit 0
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "note: pip is missing; the /metrics parser test will be skipped" >&2
  exit 0
fi
echo "installing: prometheus_client (PyPI)"
python3 -m pip install --quiet prometheus_client 2>/dev/null \
  || python3 -m pip install --quiet --break-system-packages prometheus_client

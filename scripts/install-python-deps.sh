#!/usr/bin/env bash
# Installs the Python packages the tests use, when missing: the Prometheus text parser for the
# /metrics test, and strawberry-graphql for the third-party origin of the schema tests
# (Tests/fixtures/strawberry_origin.py), h2 for the raw-frame HTTP/2 client
# (Tests/fixtures/h2_attacks.py), httpx with its http2 extra for the HTTP/2 client tests, and
# opentelemetry-proto, whose ExportTraceServiceRequest the OTLP receiver of the tracing tests
# decodes every export into (Tests/fixtures/otlp_receiver.py).
# Without pip it says so and leaves those tests to skip.
set -euo pipefail

missing=()
python3 -c 'import prometheus_client' 2>/dev/null || missing+=(prometheus_client)
python3 -c 'import strawberry' 2>/dev/null || missing+=(strawberry-graphql)
python3 -c 'import h2' 2>/dev/null || missing+=(h2)
python3 -c 'import httpx' 2>/dev/null || missing+=('httpx[http2]')
python3 -c 'import opentelemetry.proto.collector.trace.v1.trace_service_pb2' 2>/dev/null || missing+=(opentelemetry-proto)
[ ${#missing[@]} -eq 0 ] && exit 0
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "note: pip is missing; the tests that need ${missing[*]} will be skipped" >&2
  exit 0
fi
echo "installing: ${missing[*]} (PyPI)"
python3 -m pip install --quiet "${missing[@]}" 2>/dev/null \
  || python3 -m pip install --quiet --break-system-packages "${missing[@]}"

#!/usr/bin/env bash
# Runs deploy/Dockerfile's build stage without Docker: the exact COPY sources in an empty folder,
# then the same `swift build -c release --product breakwater` the image runs, then checks the
# binary starts. Package dependencies come from SwiftPM's local cache when it holds them.
# Slow (a release build): `make deploy-build`, not part of `make test`. DEPLOY_BUILD_OUTPUT=PATH
# keeps the binary (bench/l2.sh can then use it through BENCH_BIN).
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scripts/deploy-context.sh "$work/src"
# Same versions as the developer build when there is one (Package.resolved is not committed).
[ -f Package.resolved ] && cp Package.resolved "$work/src/"
cd "$work/src"
start=$(date +%s)
swift build -c release --product breakwater
binary="$(swift build -c release --show-bin-path)/breakwater"
"$binary" --version
[ -n "${DEPLOY_BUILD_OUTPUT:-}" ] && install -m 0755 "$binary" "$DEPLOY_BUILD_OUTPUT"
echo "deploy-build: ok in $(( $(date +%s) - start ))s"

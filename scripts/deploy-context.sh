#!/usr/bin/env bash
# Copies into DIR exactly what deploy/Dockerfile's build stage COPYs from the repository (the
# `COPY <src> <dest>` lines without --from), so that the build can be tried on what the image
# would hold and nothing else.
# Usage: scripts/deploy-context.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: deploy-context.sh DIR}"
mkdir -p "$target"
# Only the build stage: the lines before the second FROM.
awk '/^FROM /{stage++} stage==1 && /^COPY / && !/--from/ {print $2}' deploy/Dockerfile | while read -r source; do
  [ -e "$source" ] || { echo "deploy-context: COPY source $source does not exist" >&2; exit 1; }
  mkdir -p "$target/$(dirname "$source")"
  cp -R "$source" "$target/$(dirname "$source")/"
done

#!/usr/bin/env bash
# Installs the Debian packages Breakwater needs to build and test, when missing.
# Usage: scripts/install-deps.sh [--print] [extra-package ...]
set -euo pipefail

# The packages are listed once, for this script and deploy/Dockerfile alike (why each one is
# there: the comments in the files): deploy/packages/build.txt (what a build links) and
# deploy/packages/test.txt (what `make test` and the benchmarks run besides).
# --print lists them, one a line, and installs nothing.
lists=("$(dirname "$0")/../deploy/packages/build.txt" "$(dirname "$0")/../deploy/packages/test.txt")
print=0
if [ "${1:-}" = "--print" ]; then print=1; shift; fi
packages=()
while read -r package; do
  [ -n "$package" ] && packages+=("$package")
done < <(sed 's/#.*//; s/[[:space:]]//g' "${lists[@]}")
packages+=("$@")
if [ "$print" -eq 1 ]; then printf '%s\n' "${packages[@]}"; exit 0; fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# The packages' own services (redis-server, nginx, prometheus) are not started: the tests and
# benchmarks start their own on free ports. policy-rc.d refuses every start while installing.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
  trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs the Debian packages Breakwater needs to build and test, when missing.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

# libstdc++-12-dev: the binary links its static archive (Libraries/static). nginx: a live test
# puts a real proxy_cache in front. prometheus: its promtool checks /metrics and the alert rules.
# varnish, varnish-modules: live tests purge a real Varnish with xkey (docs/CDN.md).
# libnghttp2-dev: HTTP/2 (RFC 9113). nghttp2-client: h2load for the HTTP/2 benchmark rows.
# systemd: systemd-analyze verifies the units, and systemd-socket-activate holds the listening
# sockets across a restart in a live test, as the socket units do.
packages=(libevent-dev libssl-dev libhiredis-dev zlib1g-dev libnghttp2-dev libstdc++-12-dev redis-server nginx prometheus varnish varnish-modules nghttp2-client systemd pkg-config openssl ca-certificates "$@")
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

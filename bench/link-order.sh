#!/usr/bin/env bash
# `make link-order`: regenerates Sources/breakwater/link.order, the functions the linker places
# first in the binary's .text (Package.swift, `--symbol-ordering-file`).
#
# A process maps its binary's code from the page cache in 64 KiB windows (the kernel's fault-
# around), so a function run once pulls in the 64 KiB around it. With the functions a run
# executes side by side, the empty process maps about 5 MiB of .text instead of 11 (BENCHMARKS.md,
# "Memory"). Which functions run is counted, not guessed: the release binary runs under
# callgrind from its start through a mix of traffic (hits, misses, APQ, batches, gzip, bad
# requests, the admin endpoints, purges) and stops cleanly; every function of the binary that
# ran is listed, the costliest first. A stale list costs memory, not correctness: a function
# it does not name is placed after the listed ones, and a name that no longer exists is ignored.
#   BENCH_BIN=PATH   order from this binary instead of building .build/release/breakwater
#   LINK_ORDER_OUT=PATH   write here instead of Sources/breakwater/link.order
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT=${LINK_ORDER_OUT:-$REPO_DIR/Sources/breakwater/link.order}

bench_install_traps
bench_install_all
bench_install_packages valgrind python3 curl
bench_build
# Valgrind 3.19 cannot read Swift 6's DWARF 5: a copy without debug sections (symbols kept).
objcopy --strip-debug "$BREAKWATER" "$BENCH_TMP/breakwater"

bench_start_origin ORIGIN_PID ORIGIN_URL
RULES=$(printf '  max_bytes: 1GiB\n  rules:\n    - operation: Launch\n      ttl: 1h\n    - operation: List\n      ttl: 1h')
bench_write_config "$BENCH_TMP/order.yaml" "$ORIGIN_URL" "$RULES"
PROFILE="$BENCH_TMP/callgrind.out"
LOG="$BENCH_TMP/proxy.log"
bench_start PROXY_PID "$LOG" valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
  --callgrind-out-file="$PROFILE" "$BENCH_TMP/breakwater" run --config "$BENCH_TMP/order.yaml" --threads 1 \
  --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --log-level info
line=$(bench_wait_line "$PROXY_PID" "$LOG" 'breakwater: listening on http://' 180)
admin=$(bench_wait_line "$PROXY_PID" "$LOG" 'admin listening on http://' 60)
URL="http://127.0.0.1:$(bench_port_of "$line")/graphql"
ADMIN="http://127.0.0.1:$(bench_port_of "$admin")"
bench_log "profiling $URL under callgrind"

DOC='query Launch($id: ID!) { launch(id: $id) { id site mission { name } rocket { id name } } }'
HASH=$(bench_hash "$DOC")
LIST='query List { launches(pageSize: 20) { launches { id site mission { name missionPatch } rocket { id name type } } } }'
post() { curl -s -o /dev/null "$URL" -H 'Content-Type: application/json' "$@"; }
apq() { # ID [curl options]: the persisted-query GET of Launch
  local id=$1
  shift
  curl -s -o /dev/null -G "$URL" --data-urlencode "variables={\"id\":\"$id\"}" \
    --data-urlencode "extensions={\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"$HASH\"}}" "$@"
}
for round in 1 2 3; do
  for id in 1 2 3 4 5 6; do
    apq "$id"  # PersistedQueryNotFound in round 1, then hits
    post -d "$(jq -cn --arg q "$DOC" --arg id "$id" --arg h "$HASH" \
      '{query: $q, variables: {id: $id}, extensions: {persistedQuery: {version: 1, sha256Hash: $h}}}')"
    apq "$id"
    apq "$id" -I
    apq "$id" -H 'If-None-Match: "0"'
    post -d "$(jq -cn --arg q "$DOC" --arg id "$id" '{query: $q, variables: {id: $id}}')"
    post -H 'Accept-Encoding: gzip' -d "$(jq -cn --arg q "$LIST" '{query: $q}')"
    post -d "$(jq -cn --arg q "$DOC" --arg id "$id" '[{query: $q, variables: {id: $id}}, {query: "{ launches { cursor } }"}]')"
    post -d '{"query":"{ launches { cursor }"}'
    post -d '{"query":'
    post -d '{"query":"mutation { bookTrips(launchIds: [\"1\"]) { success } }"}'
    curl -s -o /dev/null "$URL?query=%7B__typename%7D"
    curl -s -o /dev/null -X OPTIONS "$URL" -H 'Origin: http://app.example' -H 'Access-Control-Request-Method: POST'
    curl -s -o /dev/null "${URL%/graphql}/elsewhere"
  done
  # Distinct answers stored one after another, as a cache filling up stores them (the entries'
  # freshness samples are offered and scheduled on this path).
  python3 - "$URL" "$DOC" "$round" <<'PYEOF'
import http.client, json, sys, urllib.parse
url, doc, round_ = urllib.parse.urlsplit(sys.argv[1]), sys.argv[2], sys.argv[3]
connection = http.client.HTTPConnection(url.hostname, url.port)
for n in range(200):
    body = json.dumps({"query": doc, "variables": {"id": "fill-%s-%d" % (round_, n)}})
    connection.request("POST", url.path, body, {"Content-Type": "application/json"})
    connection.getresponse().read()
PYEOF
  for path in / /stats /metrics /healthz /readyz; do curl -s -o /dev/null "$ADMIN$path"; done
  curl -s -o /dev/null -X POST "$ADMIN/purge" -H 'Content-Type: application/json' -d '{"type":"Launch","id":"1"}'
  curl -s -o /dev/null -X POST "$ADMIN/purge" -H 'Content-Type: application/json' -d '{"operation":"List","soft":true}'
done
hits=$(curl -s "$ADMIN/stats" | jq -r .hits)
[ "$hits" -gt 0 ] || bench_die "the traffic made no cache hit: $(curl -s "$ADMIN/stats")"
bench_stop "$PROXY_PID"
[ -s "$PROFILE" ] || bench_die "callgrind wrote no profile ($LOG)"

# The functions of the binary itself (not of the shared libraries), by self cost. In callgrind's
# format a cost line belongs to the last `fn=`, except the line after `calls=`, which is the
# callee's inclusive cost; `'2` marks a recursion level of the same function.
python3 - "$PROFILE" "$BENCH_TMP/breakwater" >"$BENCH_TMP/link.order" <<'EOF'
import collections, sys
profile, binary = sys.argv[1], sys.argv[2]
cost = collections.Counter()
in_binary = False
function = None
after_call = False
for line in open(profile, errors="replace"):
    if line.startswith("ob="):
        in_binary = line[3:].strip() == binary
    elif line.startswith("fn="):
        function = line[3:].strip().split("'")[0] if in_binary else None
        if function is not None and not function.startswith("0x"):
            cost[function] += 0
        else:
            function = None
    elif line.startswith("calls="):
        after_call = True
    elif line[:1].isdigit() or line[:1] in "+-*":
        if function is not None and not after_call:
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                cost[function] += int(fields[1])
        after_call = False
for name, _ in sorted(cost.items(), key=lambda item: (-item[1], item[0])):
    print(name)
EOF
count=$(wc -l <"$BENCH_TMP/link.order")
[ "$count" -gt 1000 ] || bench_die "only $count functions in the profile"
cp "$BENCH_TMP/link.order" "$OUT"
bench_log "wrote $count functions to $OUT"

#!/usr/bin/env bash
# Checks the operators' HTML dashboard (README "Watching it: the admin endpoints", admin `GET /`) in a real browser: starts the
# demo origin and the proxy on loopback, sends traffic, renders the page in headless Chromium, and
# asserts from the rendered DOM that the figures match the traffic (with the admin listener: a TTL
# changed by a reload shown at once, a failing CDN target's lines), and from Chromium's layout
# (scripts/dashboard-layout.py) that no text runs out of its card or is cut without a title. Leaves
# a screenshot behind.
# Then, over https with a fresh test certificate, that Chromium reaches the proxy by HTTP/2 (ALPN h2).
#
# Usage: bash scripts/dashboard-check.sh [--stand-in]
#   BREAKWATER_BIN  the binary to test (default .build/debug/breakwater; build it with `swift build`)
#   DASHBOARD_OUT   folder for dashboard.png and dashboard-dom.html (default /tmp)
#   --stand-in      serve the page and /stats from a small Python server instead of the proxy's admin
#                   listener (the page is taken from DashboardPage.swift, /stats from
#                   Tests/fixtures/stats-sample.json with the counters of the traffic sent)
set -euo pipefail

# Paths given by the caller are relative to where they stand; the defaults to the package root.
bin=${BREAKWATER_BIN:+$(realpath -m "$BREAKWATER_BIN")}
out=$(realpath -m "${DASHBOARD_OUT:-/tmp}")
cd "$(dirname "$0")/.."
bin=${bin:-.build/debug/breakwater}
page_source=Sources/BreakwaterCore/Stats/DashboardPage.swift
fixture=Tests/fixtures/stats-sample.json
requests_to_send=20
stand_in=0
case "${1:-}" in
  "") ;;
  --stand-in) stand_in=1 ;;
  *) echo "usage: bash scripts/dashboard-check.sh [--stand-in]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
failures=()
check() { # name, then a command that succeeds when the check passes
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "  ok    $name"; else failures+=("$name"); echo "  FAIL  $name"; fi
}
die() { echo "dashboard check: $*" >&2; exit 1; }

# MARK: Tools

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v python3 >/dev/null || missing+=(python3)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
    || { $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; }
fi
[ -x "$bin" ] || die "no breakwater binary at $bin (run \`swift build\`, or set BREAKWATER_BIN)"
mkdir -p "$out"

# Prints the first match of a pattern in a process's log, waiting up to $3 seconds while it runs.
wait_for() { # log, pattern, seconds, pid
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -m1 -oE "$2" "$1" 2>/dev/null && return 0
    kill -0 "$4" 2>/dev/null || break
    sleep 0.1
  done
  grep -m1 -oE "$2" "$1" 2>/dev/null
}

# A loopback HTTP server for the stand-in admin and the disconnect test: serves index.html at `/` and
# stats.json at `/stats`; with --once, /stats answers 503 after its first answer.
cat > "$work/serve.py" <<'PY'
import http.server, sys
folder, once = sys.argv[1], "--once" in sys.argv
served = 0
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global served
        path = self.path.split("?")[0]
        if path == "/":
            self.answer(200, "text/html; charset=utf-8", open(folder + "/index.html", "rb").read())
        elif path == "/stats" and not (once and served):
            served += 1
            self.answer(200, "application/json", open(folder + "/stats.json", "rb").read())
        elif path == "/stats":
            self.answer(503, "text/plain", b"draining\n")
        else:
            self.answer(404, "text/plain", b"not found\n")
    def answer(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("serving on http://127.0.0.1:%d/" % server.server_port, flush=True)
server.serve_forever()
PY

start_server() { # folder, log, extra args; sets server_url
  python3 -u "$work/serve.py" "$1" "${@:3}" >"$2" 2>&1 &
  pids+=($!)
  server_url=$(wait_for "$2" 'http://127\.0\.0\.1:[0-9]+/' 10 "$!") || die "stand-in server did not start: $(cat "$2")"
}

# Headless Chromium with nothing but loopback: no sync, no component updates, no first-run pings.
browse() { # what (--screenshot=FILE | --dump-dom), URL
  # shellcheck disable=SC2054 # the comma in --window-size=1280,900 is the flag's own
  local flags=(--headless=new --disable-gpu --hide-scrollbars --no-first-run --no-default-browser-check
    --disable-background-networking --disable-component-update --disable-sync --disable-extensions
    --user-data-dir="$work/chromium" --window-size=1280,900 --virtual-time-budget=6000)
  [ "$(id -u)" -ne 0 ] || flags+=(--no-sandbox)
  timeout -k 5 120 chromium "${flags[@]}" "$1" "$2" 2>>"$work/chromium.log"
}

# Prints `id<TAB>text` for every element with an id, and `op<TAB>name<TAB>requests<TAB>hit ratio<TAB>
# current TTL` for every row of the operations and freshness tables (each has the cells of its own).
cat > "$work/read-dom.py" <<'PY'
import html.parser, sys
class Reader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.open, self.texts, self.rows, self.row = [], {}, [], None
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("br", "meta", "link", "input", "img", "hr"):
            return
        self.open.append((tag, attrs.get("id")))
        if tag == "tr" and "data-operation" in attrs:
            self.row = {"name": attrs["data-operation"], "cells": {}, "cell": None}
        if tag in ("td", "span") and self.row is not None and attrs.get("class"):
            self.row["cell"] = attrs["class"].split()
    def handle_endtag(self, tag):
        while self.open:
            opened, _ = self.open.pop()
            if opened == tag:
                break
        if tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
    def handle_data(self, data):
        for _, element_id in self.open:
            if element_id:
                self.texts[element_id] = self.texts.get(element_id, "") + data
        if self.row is not None and self.row["cell"]:
            for name in self.row["cell"]:
                self.row["cells"][name] = self.row["cells"].get(name, "") + data
reader = Reader()
reader.feed(open(sys.argv[1], encoding="utf-8").read())
for element_id, text in reader.texts.items():
    print("%s\t%s" % (element_id, " ".join(text.split())))
for row in reader.rows:
    cells = row["cells"]
    print("op\t%s\t%s\t%s\t%s" % (row["name"], cells.get("requests", ""), cells.get("hit-ratio", ""),
                                  cells.get("current-ttl", "")))
PY

# MARK: Origin, proxy, traffic

"$bin" demo --origin-only --test-controls --origin-listen 127.0.0.1:0 >"$work/origin.log" 2>&1 &
pids+=($!)
origin_url=$(wait_for "$work/origin.log" 'http://127\.0\.0\.1:[0-9]+/graphql' 20 "$!") \
  || die "the demo origin did not start: $(cat "$work/origin.log")"

# GetSite is sampled for freshness within its 1 s TTL, then reloaded to 45s; the CDN target refuses
# every call (nothing listens on port 9), so its last error is a long line.
cat > "$work/config.yaml" <<'YAML'
cache:
  snapshot: cache.snapshot
  tag_header: xkey
  freshness:
    sample: 1
    max_fetches_per_second: 100
  rules:
    - operation: GetLaunches
      ttl: 30s
    - operation: GetSite
      ttl: 1s
cdn:
  targets:
    - kind: http
      url: "http://127.0.0.1:9/purge-webhook"
  retries: 1
  timeout: 500ms
persisted_queries:
  store: ""
YAML
started=$SECONDS
"$bin" run --config "$work/config.yaml" --listen 127.0.0.1:0 --origin "$origin_url" --admin-listen 127.0.0.1:0 \
  >"$work/proxy.log" 2>&1 &
proxy_pid=$!
pids+=("$proxy_pid")
proxy_url=$(wait_for "$work/proxy.log" 'listening on http://127\.0\.0\.1:[0-9]+/graphql' 20 $proxy_pid) \
  || die "the proxy did not start: $(cat "$work/proxy.log")"
proxy_url=${proxy_url#listening on }

body='{"query":"query GetLaunches { launches(pageSize: 3) { cursor } }","operationName":"GetLaunches"}'
results=()
for ((i = 0; i < requests_to_send; i++)); do
  result=$(curl -s -o /dev/null -D - --max-time 10 -H 'Content-Type: application/json' --data "$body" "$proxy_url" \
    | tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" { print $2 }')
  results+=("${result:-none}")
done
count() { # X-Cache value, then the results to count it in
  local want=$1 n=0 r; shift
  for r in "$@"; do [ "$r" = "$want" ] && n=$((n + 1)); done; echo $n
}

# MARK: A reloaded TTL, a failing CDN target (the admin listener only: the stand-in serves a fixture)

# Polls the proxy's /stats until a Python expression over it (`s`) holds, for up to $1 seconds.
stats_hold() { # seconds, expression
  local i
  for ((i = 0; i < $1 * 10; i++)); do
    curl -s --max-time 5 "$proxy_admin/stats" 2>/dev/null \
      | python3 -c 'import json, sys; s = json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else 1)' "$2" \
      2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
extra_results=()
site_sampled=1 reloaded=1 cdn_failed=1
if [ $stand_in -eq 0 ]; then
  proxy_admin=$(wait_for "$work/proxy.log" 'admin listening on http://127\.0\.0\.1:[0-9]+' 10 $proxy_pid) \
    || die "the proxy printed no 'admin listening on' line"
  proxy_admin=${proxy_admin#admin listening on }
  site='{"query":"query GetSite { launch(id: \"3\") { id site } }","operationName":"GetSite"}'
  result=$(curl -s -o /dev/null -D - --max-time 10 -H 'Content-Type: application/json' --data "$site" "$proxy_url" \
    | tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" { print $2 }')
  extra_results+=("${result:-none}")
  stats_hold 10 "s['freshness'].get('GetSite', {}).get('samples', 0) >= 1" || site_sampled=0
  sed -i 's/ttl: 1s/ttl: 45s/' "$work/config.yaml"
  kill -HUP "$proxy_pid"
  stats_hold 10 "s['config']['reloads'] >= 1" || reloaded=0
  curl -s -o /dev/null --max-time 5 -H 'Content-Type: application/json' --data '{"type":"Launch","id":"0"}' \
    "$proxy_admin/purge"
  stats_hold 10 "s['cdn']['http']['last_error'] is not None" || cdn_failed=0
fi
all_results=("${results[@]}" ${extra_results[@]+"${extra_results[@]}"})
sent=${#all_results[@]}
hits=$(count HIT "${all_results[@]}"); stale=$(count STALE "${all_results[@]}")
misses=$(count MISS "${all_results[@]}"); bypass=$(count BYPASS "${all_results[@]}")

# MARK: The dashboard

if [ $stand_in -eq 1 ]; then
  mode="stand-in admin"
  mkdir "$work/stand-in"
  # The raw string literal's lines, less the 4 spaces of indentation Swift strips.
  awk '/static let html: String = #"""$/ { inside = 1; next } /^    """#$/ { inside = 0 }
    inside { sub(/^    /, ""); print }' "$page_source" >"$work/stand-in/index.html"
  uptime=$((SECONDS - started + 1))
  python3 - "$fixture" "$work/stand-in/stats.json" "$hits" "$stale" "$misses" "$bypass" "$uptime" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
hits, stale, misses, bypass, uptime = map(int, sys.argv[3:8])
cacheable = hits + stale + misses
counts = {"requests": hits + stale + misses + bypass, "hits": hits, "misses": misses, "stale": stale,
          "bypass": bypass, "hit_ratio": (hits + stale) / cacheable if cacheable else 0}
stats.update(counts, uptime_s=uptime)
stats["operations"] = {"GetLaunches": dict(counts, p50_ms=0.3, p99_ms=2.1)}
stats["responses"] = {"200": counts["requests"]}
json.dump(stats, open(sys.argv[2], "w"))
PY
  start_server "$work/stand-in" "$work/stand-in.log"
  admin_url=$server_url
else
  mode="admin listener"
  admin_url=$(wait_for "$work/proxy.log" 'admin listening on http://127\.0\.0\.1:[0-9]+' 10 $proxy_pid) \
    || die "the proxy printed no 'admin listening on' line (no admin listener in this build?);" \
      "try \`bash scripts/dashboard-check.sh --stand-in\`"
  admin_url="${admin_url#admin listening on }/"
fi
echo "dashboard check against the $mode at $admin_url"

rm -f "$out/dashboard.png" "$out/dashboard-dom.html"
curl -s -D "$work/page.headers" -o "$work/page.html" --max-time 10 "$admin_url" || true
browse --screenshot="$work/dashboard.png" "$admin_url" >/dev/null
browse --dump-dom "$admin_url" >"$work/dom.html" || true
cp "$work/dom.html" "$out/dashboard-dom.html"
[ ! -s "$work/dashboard.png" ] || cp "$work/dashboard.png" "$out/dashboard.png"
python3 "$work/read-dom.py" "$work/dom.html" >"$work/dom.txt" || true

text_of() { awk -F'\t' -v id="$1" '$1 == id { print $2; exit }' "$work/dom.txt"; }
plain() { text_of "$1" | tr -d ','; }
is_number() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b <= 0.15 && b - a <= 0.15) }'; }
ratio_of() { awk -v h="$1" -v m="$2" 'BEGIN { if (h + m) printf "%.4f", 100 * h / (h + m) }'; }
expected_ratio=$(ratio_of $((hits + stale)) "$misses")
operation_ratio=$(ratio_of $(($(count HIT "${results[@]}") + $(count STALE "${results[@]}"))) "$(count MISS "${results[@]}")")
shown_ratio=$(text_of hit-ratio)
operation_row=$(awk -F'\t' '$1 == "op" && $2 == "GetLaunches" { print $3 "\t" $4; exit }' "$work/dom.txt")

traffic_as_expected() { [ "${results[0]}" = MISS ] && [ "$(count HIT "${results[@]}")" -eq $((requests_to_send - 1)) ]; }
page_is_html() {
  grep -qiE '^HTTP/[0-9.]+ 200' "$work/page.headers" && grep -qiE '^content-type: *text/html' "$work/page.headers"
}
titled() { tr -d '\n' <"$work/dom.html" | grep -q '<title>Breakwater.*<h1>Breakwater</h1>'; }
page_is_self_contained() {
  ! grep -qiE '(src|href) *= *["'\'']?(https?:)?//|url\( *["'\'']?(https?:)?//|@import' "$work/page.html" \
    && grep -q '"\./stats"' "$work/page.html"
}
ratio_matches() { [[ $shown_ratio =~ ^([0-9.]+)%$ ]] && near "${BASH_REMATCH[1]}" "$expected_ratio"; }
operation_listed() {
  [ "$(cut -f1 <<<"$operation_row" | tr -d ',')" = "$requests_to_send" ] \
    && [[ $(cut -f2 <<<"$operation_row") =~ ^([0-9.]+)%$ ]] && near "${BASH_REMATCH[1]}" "$operation_ratio"
}
cache_has_entries() {
  is_number "$(plain cache-entries)" && [ "$(plain cache-entries)" -ge 1 ] && [[ $(text_of cache-fill) =~ %$ ]]
}
# The hit ratio since the proxy started (every counter 0 then) is the first point of the chart.
chart_plotted() { grep -qE '<svg id="chart"[^>]*>.*<circle [^>]*>.*</svg>' "$work/dom.html"; }
screenshot_written() {
  [ "$(head -c 8 "$out/dashboard.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] \
    && [ "$(wc -c <"$out/dashboard.png")" -gt 10000 ]
}

check "traffic: first request MISS, then HIT ($requests_to_send sent: ${results[*]})" traffic_as_expected
check "GET / answers 200 text/html" page_is_html
check "page is self-contained (no external assets) and polls ./stats" page_is_self_contained
check "title and heading read Breakwater" titled
check "status reads live (got '$(text_of status)')" test "$(text_of status)" = live
check "hit ratio shows $(printf '%.1f' "${expected_ratio:-0}")% (got '$shown_ratio')" ratio_matches
check "requests shows $sent (got '$(text_of requests)')" test "$(plain requests)" = "$sent"
check "HIT count shows $hits (got '$(text_of hits)')" test "$(plain hits)" = "$hits"
check "MISS count shows $misses (got '$(text_of misses)')" test "$(plain misses)" = "$misses"
check "requests/s computed between polls (got '$(text_of requests-per-second)')" \
  is_number "$(plain requests-per-second)"
check "ops table lists GetLaunches with $requests_to_send requests (got '${operation_row//$'\t'/ }')" operation_listed
check "cache fill shows a percentage and entries >= 1 (got '$(text_of cache-fill)', '$(text_of cache-entries)')" \
  cache_has_entries
check "upstream p99 shows milliseconds (got '$(text_of upstream-p99)')" is_number "$(plain upstream-p99)"
check "uptime shown (got '$(text_of uptime)')" test -n "$(text_of uptime | tr -d '—')"
check "origin health reads healthy (got '$(text_of origin-health)')" test "$(text_of origin-health)" = healthy
check "answers by status list 200 (got '$(text_of statuses)')" grep -q '200' <<<"$(text_of statuses)"
check "hit-ratio chart plots a point since start" chart_plotted
check "the cache snapshot line reads none on a first start (got '$(text_of snapshot-loaded)')" \
  test "$(text_of snapshot-loaded)" = none
check "screenshot written to $out/dashboard.png" screenshot_written

# The layout as Chromium computes it, at the screenshot's size and at one where the cards stack.
for size in 1280,900 900,900; do
  layout=$(timeout -k 5 120 python3 scripts/dashboard-layout.py "$admin_url" "$size" 2>>"$work/chromium.log" || true)
  problems=$(python3 -c 'import json, sys; print("; ".join(json.loads(sys.argv[1])["problems"]))' "$layout" 2>/dev/null \
    || echo "no answer: $layout")
  check "at $size every text stays in its card, none cut without a title (${problems:-none})" test -z "$problems"
done

if [ $stand_in -eq 0 ]; then
  current_ttl=$(awk -F'\t' '$1 == "op" && $2 == "GetSite" && $5 != "" { print $5; exit }' "$work/dom.txt")
  check "GetSite was sampled for freshness under its 1s TTL" test "$site_sampled" -eq 1
  check "the reload to 45s was counted" test "$reloaded" -eq 1
  check "the freshness table's Current TTL of GetSite reads 45s right after the reload (got '$current_ttl')" \
    test "$current_ttl" = 45s
  cdn_lines=$(text_of cdn-figures)
  check "the CDN target's purge failed with an error" test "$cdn_failed" -eq 1
  check "the CDN purges card lists the target and its last error (got '$cdn_lines')" \
    grep -q '^http: .* failed.*last error: ' <<<"$cdn_lines"
fi

# A stats source that answers once and then fails: the page must say so and keep the figures.
mkdir "$work/failing"
cp "$work/page.html" "$work/failing/index.html"
curl -s --max-time 10 "${admin_url}stats" >"$work/failing/stats.json" || true
[ -s "$work/failing/stats.json" ] || cp "$fixture" "$work/failing/stats.json"
start_server "$work/failing" "$work/failing.log" --once
browse --dump-dom "$server_url" >"$work/dom.html" || true
python3 "$work/read-dom.py" "$work/dom.html" >"$work/dom.txt" || true
check "when /stats fails: status reads disconnected (got '$(text_of status)')" test "$(text_of status)" = disconnected
check "when /stats fails: the last figures stay (hit ratio '$(text_of hit-ratio)')" \
  test "$(text_of hit-ratio)" = "$shown_ratio"

# MARK: HTTP/2 in the browser

# A second proxy terminating TLS with a fresh certificate: Chromium opens a GraphQL GET on it and
# POSTs from that page (scripts/browser-protocol.py); the page's own Resource Timing
# (`performance.getEntries()[0].nextHopProtocol`) says which protocol ALPN chose for each.
if [ $stand_in -eq 0 ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null || die "openssl could not make a certificate"
  printf 'server:\n  tls:\n    cert: %s\n    key: %s\npersisted_queries:\n  store: ""\n' "$work/cert.pem" "$work/key.pem" \
    >"$work/tls.yaml"
  "$bin" run --config "$work/tls.yaml" --listen 127.0.0.1:0 --origin "$origin_url" --admin-listen 127.0.0.1:0 \
    >"$work/tls-proxy.log" 2>&1 &
  pids+=($!)
  tls_url=$(wait_for "$work/tls-proxy.log" 'listening on https://127\.0\.0\.1:[0-9]+' 20 $!) \
    || die "the TLS proxy did not start: $(cat "$work/tls-proxy.log")"
  graphql_get="https://localhost:${tls_url##*:}/graphql?query=%7B__typename%7D"
  protocols=$(timeout -k 5 120 python3 scripts/browser-protocol.py "$graphql_get" "$work/cert.pem" 2>>"$work/chromium.log" || true)
  protocol_of() { python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$protocols" "$1" 2>/dev/null; }
  check "a GraphQL GET opened in Chromium over https came by h2 (nextHopProtocol '$(protocol_of navigation)'; $protocols)" \
    test "$(protocol_of navigation)" = h2
  check "a GraphQL POST fetched from that page went by h2 (nextHopProtocol '$(protocol_of fetch)')" \
    test "$(protocol_of fetch)" = h2
fi

if [ ${#failures[@]} -eq 0 ]; then
  echo "dashboard check: $passed passed, 0 failed ($mode; screenshot $out/dashboard.png)"
else
  echo "dashboard check: $passed passed, ${#failures[@]} failed ($mode; screenshot $out/dashboard.png," \
    "DOM $out/dashboard-dom.html):"
  printf '  - %s\n' "${failures[@]}"
  grep -v -e 'dbus' "$work/chromium.log" | tail -n 20 | sed 's/^/  chromium: /' || true
  exit 1
fi

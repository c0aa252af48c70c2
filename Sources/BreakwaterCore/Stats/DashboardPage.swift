// The operators' live dashboard, served by the admin listener at `GET /` (README "Watching it: the admin endpoints").

/// The HTML dashboard: one self-contained document that polls `./stats` every two seconds and
/// draws the figures, so an operator reads the proxy's health at a glance.
///
/// Everything is inline (CSS, JavaScript, the chart as SVG): no external assets, so the page works
/// offline and behind a path prefix. Request rate and the hit-ratio history are computed in the
/// page from the change in counters between polls; the proxy keeps no history for it. Every
/// figure has a stable `id` (`hit-ratio`, `requests`, `cache-fill`, `upstream-p99`, `ops-table`,
/// …) that `scripts/dashboard-check.sh` reads from the rendered DOM. Operation names come from
/// clients, so the script writes them with `textContent`, never as markup.
package enum DashboardPage {
    /// The document, UTF-8, to be served as `text/html; charset=utf-8`.
    package static let html: String = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Breakwater</title>
    <link rel="icon" href="data:,">
    <style>
    :root {
      --bg: #f3f4f6; --card: #ffffff; --line: #dfe2e7; --ink: #16191d; --muted: #5f6873; --faint: #e9ebef;
      --hit: #2b8a3e; --stale: #e6a700; --miss: #d9480f; --bypass: #868e96; --bad: #c92a2a; --accent: #1c64b8;
    }
    * { box-sizing: border-box; }
    html, body { margin: 0; background: var(--bg); color: var(--ink); }
    body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
    .num, td.n, th.n { font-variant-numeric: tabular-nums; }
    header { display: flex; align-items: center; gap: 14px; padding: 10px 20px; background: var(--ink); color: #fff; }
    header h1 { margin: 0; font-size: 19px; letter-spacing: .02em; }
    header .sub { color: #aeb6bf; }
    header .meta { margin-left: auto; display: flex; gap: 18px; align-items: center; color: #d5dae0; }
    header .meta b { color: #fff; font-weight: 600; }
    #status { padding: 2px 10px; border-radius: 10px; font-weight: 700; font-size: 12px; text-transform: uppercase;
      letter-spacing: .05em; background: #5f6873; color: #fff; }
    #status.live { background: var(--hit); }
    #status.disconnected { background: var(--bad); }
    #banner { display: none; padding: 8px 20px; background: #ffe3e3; color: #8a1c1c; border-bottom: 1px solid #ffc9c9;
      font-weight: 600; }
    body.disconnected #banner { display: block; }
    body.disconnected main { opacity: .55; }
    main { display: grid; grid-template-columns: repeat(12, 1fr); gap: 12px; padding: 14px 20px 20px; max-width: 1480px;
      margin: 0 auto; }
    .card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px;
      min-width: 0; }
    .card h2 { margin: 0 0 4px; font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .07em;
      color: var(--muted); }
    .span4 { grid-column: span 4; } .span8 { grid-column: span 8; }
    .big { font-size: 34px; font-weight: 700; line-height: 1.1; letter-spacing: -.01em; }
    .unit { font-size: 15px; font-weight: 600; color: var(--muted); margin-left: 3px; }
    .big.long { font-size: 26px; line-height: 1.3; }
    .note { color: var(--muted); margin-top: 2px; font-size: 12px; white-space: nowrap; overflow: hidden;
      text-overflow: ellipsis; }
    .figures { display: grid; gap: 12px; grid-column: span 12;
      grid-template-columns: repeat(2, minmax(0, 1fr)) repeat(2, minmax(0, 1.3fr)) minmax(0, 1.9fr) minmax(0, 1.3fr); }
    .trio { display: flex; gap: 12px; }
    .trio > div { flex: 1; min-width: 0; }
    .trio .label { color: var(--muted); font-weight: 600; }
    .trio .big { font-size: 30px; }
    .trio .unit { font-size: 13px; }
    .bar { position: relative; height: 12px; background: var(--faint); border-radius: 3px; overflow: hidden;
      margin: 8px 0 4px; }
    .bar > div { position: absolute; top: 0; bottom: 0; left: 0; }
    #cache-fill-bar { background: var(--accent); width: 0; transition: width .4s; }
    #cache-fill-bar.high { background: var(--stale); }
    #result-bar { display: flex; height: 22px; border-radius: 4px; overflow: hidden; background: var(--faint);
      margin: 8px 0; }
    #result-bar > div { height: 100%; transition: flex-grow .4s; }
    .sw.hit, #result-bar .hit { background: var(--hit); }
    .sw.stale, #result-bar .stale { background: var(--stale); }
    .sw.miss, #result-bar .miss { background: var(--miss); }
    .sw.bypass, #result-bar .bypass { background: var(--bypass); }
    .legend { display: grid; grid-template-columns: 12px 1fr auto 52px; gap: 3px 8px; align-items: center; }
    .legend .sw { width: 12px; height: 12px; border-radius: 2px; }
    .legend .n { text-align: right; font-weight: 600; }
    .legend .pct { text-align: right; color: var(--muted); }
    .kv { display: grid; grid-template-columns: 1fr auto; gap: 3px 10px; }
    .kv dt { color: var(--muted); } .kv dd { margin: 0; text-align: right; font-weight: 600; }
    .kv dd.bad, .big.bad, .note b.bad { color: var(--bad); }
    .sep { border-top: 1px solid var(--faint); margin: 8px 0; }
    .state { color: var(--muted); } .state b { color: var(--ink); } .state b.bad { color: var(--bad); }
    /* One line per target, wrapped within the card; a long one (an error) is cut after three lines
       and keeps its whole text in its title. */
    .lines > div { margin-top: 3px; overflow-wrap: anywhere; overflow: hidden; display: -webkit-box;
      -webkit-box-orient: vertical; -webkit-line-clamp: 3; }
    .lines b { font-weight: 600; } .lines .bad { color: var(--bad); }
    #chart { display: block; width: 100%; height: 210px; }
    #chart text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: var(--muted); }
    .chart-head { display: flex; align-items: baseline; gap: 14px; }
    .chart-head .key { color: var(--muted); display: flex; gap: 12px; margin-left: auto; }
    .chart-head .key i { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-right: 4px; }
    .table-wrap { overflow-x: auto; }
    table { width: 100%; border-collapse: collapse; }
    th { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted);
      font-weight: 700; border-bottom: 1px solid var(--line); padding: 4px 6px; }
    td { padding: 4px 6px; border-bottom: 1px solid var(--faint); white-space: nowrap; }
    td.op { max-width: 260px; overflow: hidden; text-overflow: ellipsis; font-size: 12px;
      font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
    td.n, th.n { text-align: right; }
    td.ratio { width: 150px; }
    .mini { display: inline-block; width: 70px; height: 8px; background: var(--faint); border-radius: 2px;
      margin-right: 8px; vertical-align: middle; overflow: hidden; }
    #ops-count { text-transform: none; letter-spacing: 0; font-weight: 400; }
    .mini > span { display: block; height: 100%; background: var(--hit); }
    tr.empty td { color: var(--muted); text-align: center; padding: 14px; }
    @media (max-width: 1000px) {
      main { grid-template-columns: minmax(0, 1fr); } .figures { grid-template-columns: repeat(2, minmax(0, 1fr)); }
      .figures, .span4, .span8 { grid-column: span 1; }
      header { flex-wrap: wrap; } header .meta { margin-left: 0; }
    }
    </style>
    </head>
    <body>
    <header>
      <h1>Breakwater</h1>
      <span class="sub">GraphQL edge cache</span>
      <div class="meta">
        <span>uptime <b id="uptime" class="num">—</b></span>
        <span>updated <b id="updated" class="num">—</b></span>
        <span id="status">connecting</span>
      </div>
    </header>
    <div id="banner" role="alert">disconnected: <span id="disconnected-reason">no answer from stats</span>.
      Showing the last figures received; retrying every 2 s.</div>
    <main>
      <div class="figures">
      <section class="card">
        <h2>Hit ratio</h2>
        <div class="big num" id="hit-ratio">—</div>
        <div class="note">BYPASS not counted</div>
      </section>
      <section class="card">
        <h2>Requests / s</h2>
        <div class="big num"><span id="requests-per-second">—</span><span class="unit">/s</span></div>
        <div class="note">since the last poll</div>
      </section>
      <section class="card">
        <h2>Requests</h2>
        <div class="big num" id="requests">—</div>
        <div class="note">since start</div>
      </section>
      <section class="card">
        <h2>Cache fill</h2>
        <div class="big num" id="cache-fill">—</div>
        <div class="bar"><div id="cache-fill-bar"></div></div>
        <div class="note num"><span id="cache-bytes">—</span> of <span id="cache-max-bytes">—</span></div>
        <div class="note num"><span id="cache-entries">—</span> <span id="cache-entries-unit">entries</span></div>
      </section>
      <section class="card">
        <h2>Upstream latency</h2>
        <div class="trio">
          <div><div class="label">p50</div>
            <div class="big num"><span id="upstream-p50">—</span><span class="unit">ms</span></div></div>
          <div><div class="label">p90</div>
            <div class="big num"><span id="upstream-p90">—</span><span class="unit">ms</span></div></div>
          <div><div class="label">p99</div>
            <div class="big num"><span id="upstream-p99">—</span><span class="unit">ms</span></div></div>
        </div>
      </section>
      <section class="card">
        <h2>Upstream failures</h2>
        <div class="trio">
          <div><div class="label">errors</div><div class="big num" id="upstream-errors">—</div></div>
          <div><div class="label">timeouts</div><div class="big num" id="upstream-timeouts">—</div></div>
        </div>
        <div class="note num"><span id="upstream-failed-share">—</span> of
          <span id="upstream-requests">—</span> to origin</div>
        <div class="note">origin: <b id="origin-health">—</b></div>
        <div class="note">fleet tier: <b id="redis-summary">none</b></div>
        <div class="note">CDN purges: <b id="cdn-summary">none</b></div>
      </section>
      </div>

      <section class="card span8">
        <div class="chart-head">
          <h2>Hit ratio, last 5 minutes</h2>
          <div class="key"><span><i style="background: var(--hit)"></i>hit ratio per poll</span>
            <span><i style="background: #c5d5ea; height: 8px"></i>requests / s</span></div>
        </div>
        <svg id="chart" role="img" aria-label="hit ratio over the last 5 minutes"></svg>
      </section>
      <section class="card span4">
        <h2>Requests by cache result</h2>
        <div id="result-bar">
          <div class="hit" id="result-bar-hit" title="HIT"></div>
          <div class="stale" id="result-bar-stale" title="STALE"></div>
          <div class="miss" id="result-bar-miss" title="MISS"></div>
          <div class="bypass" id="result-bar-bypass" title="BYPASS"></div>
        </div>
        <div class="legend num">
          <span class="sw hit"></span><span>HIT</span>
          <span class="n" id="hits">—</span><span class="pct" id="hits-share">—</span>
          <span class="sw stale"></span><span>STALE</span>
          <span class="n" id="stale">—</span><span class="pct" id="stale-share">—</span>
          <span class="sw miss"></span><span>MISS</span>
          <span class="n" id="misses">—</span><span class="pct" id="misses-share">—</span>
          <span class="sw bypass"></span><span>BYPASS</span>
          <span class="n" id="bypass">—</span><span class="pct" id="bypass-share">—</span>
        </div>
        <div class="sep"></div>
        <dl class="kv num">
          <dt>Coalesced (waited on another request's fetch)</dt><dd id="coalesced">—</dd>
        </dl>
      </section>

      <section class="card span8">
        <h2>Top operations by requests <span id="ops-count"></span></h2>
        <div class="table-wrap"><table id="ops-table">
          <thead><tr><th>Operation</th><th class="n">Requests</th><th class="n">Share</th><th>Hit ratio</th>
            <th class="n">Misses</th><th class="n">Bypass</th><th class="n">p50 ms</th><th class="n">p99 ms</th>
          </tr></thead>
          <tbody id="ops-rows"><tr class="empty"><td colspan="8">waiting for the first figures</td></tr></tbody>
        </table></div>
      </section>
      <section class="card span4">
        <h2>Fleet tier (Redis)</h2>
        <div class="state">state: <b id="redis-state">none</b></div>
        <div class="lines num" id="redis-figures"></div>
        <div class="sep"></div>
        <h2>CDN purges</h2>
        <div class="state">state: <b id="cdn-state">none</b></div>
        <div class="lines num" id="cdn-figures"></div>
      </section>
      <section class="card span8">
        <h2>Freshness, measured (suggested TTLs)</h2>
        <div class="table-wrap"><table id="fresh-table">
          <thead><tr><th>Operation</th><th class="n">Samples</th><th class="n">Changed</th>
            <th class="n">Current TTL</th><th class="n">Suggested TTL</th><th class="n">Stale hits (est.)</th>
          </tr></thead>
          <tbody id="fresh-rows"><tr class="empty"><td colspan="6">no samples yet</td></tr></tbody>
        </table></div>
      </section>
      <section class="card span4">
        <h2>Response cache</h2>
        <dl class="kv num">
          <dt>Evictions (to make room)</dt><dd id="cache-evictions">—</dd>
          <dt>Expired</dt><dd id="cache-expired">—</dd>
          <dt>Back from the snapshot at start</dt><dd id="snapshot-loaded">none</dd>
        </dl>
        <div class="sep"></div>
        <h2>Automatic persisted queries</h2>
        <dl class="kv num">
          <dt>Entries</dt><dd id="apq-entries">—</dd>
          <dt>Registered</dt><dd id="apq-registered">—</dd>
          <dt>Not found (client retried with the query)</dt><dd id="apq-not-found">—</dd>
          <dt>Hash mismatch</dt><dd id="apq-hash-mismatch">—</dd>
        </dl>
      </section>
      <section class="card span4">
        <h2>Errors Breakwater answered, by code</h2>
        <dl class="kv num" id="error-codes"><dt>none yet</dt><dd></dd></dl>
        <div class="sep"></div>
        <h2>Answers by status</h2>
        <dl class="kv num" id="statuses"><dt>none yet</dt><dd></dd></dl>
      </section>
    </main>
    <script>
    "use strict";
    (function () {
      const pollMs = 2000, windowMs = 5 * 60 * 1000, topOperations = 10;
      const samples = [];   // {t, requests, hits, stale, misses}: one per successful poll, last 5 minutes
      const upstreamSamples = [];   // {requests, failed}: the previous poll's upstream counters
      let lastGood = null;

      const $ = (id) => document.getElementById(id);
      const num = (v) => (typeof v === "number" && isFinite(v) ? v : null);
      const int = (v) => (num(v) === null ? "—" : Math.round(v).toLocaleString("en-US"));
      function percent(ratio) {
        if (num(ratio) === null) return "—";
        const p = Math.round(ratio * 1000) / 10;
        return (Number.isInteger(p) ? String(p) : p.toFixed(1)) + "%";
      }
      function ms(v) {
        if (num(v) === null) return "—";
        return v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US");
      }
      function rate(v) {
        if (num(v) === null) return "—";
        return v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US");
      }
      function bytes(v) {
        if (num(v) === null) return "—";
        const units = ["B", "KiB", "MiB", "GiB", "TiB"];
        let i = 0;
        while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
        return (i === 0 || v >= 100 ? Math.round(v) : v.toFixed(1)) + " " + units[i];
      }
      function duration(s) {
        if (num(s) === null) return "—";
        s = Math.floor(s);
        const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
        const two = (x) => String(x).padStart(2, "0");
        if (d) return d + "d " + two(h) + "h";
        if (h) return h + "h " + two(m) + "m";
        if (m) return m + "m " + two(r) + "s";
        return r + "s";
      }
      function set(id, text, bad) {
        const el = $(id);
        el.textContent = text;
        if (bad !== undefined) el.classList.toggle("bad", bad);
      }
      // One line per item ({name, text, bad}) under a figure: wrapped in its card, the whole text
      // in each line's title (a line past three is cut); names and errors are written as text.
      function setLines(id, items) {
        $(id).replaceChildren(...items.map((item) => {
          const line = document.createElement("div");
          if (item.name) {
            const name = document.createElement("b");
            name.textContent = item.name;
            line.append(name);
          }
          line.append(item.text);
          line.title = (item.name || "") + item.text;
          if (item.bad) line.className = "bad";
          return line;
        }));
      }
      // (hits + stale) / (hits + stale + misses), README "Watching it: the admin endpoints"; null when nothing was cacheable.
      function ratioOf(hits, stale, misses) {
        const served = (hits || 0) + (stale || 0), total = served + (misses || 0);
        return total > 0 ? served / total : null;
      }

      // The proxy's own figure when it reports one, else computed; "—" rather than 0% before any cacheable request.
      function shownRatio(reported, hits, stale, misses) {
        const computed = ratioOf(hits, stale, misses);
        return computed === null ? null : (num(reported) ?? computed);
      }

      function render(s, now) {
        const hits = num(s.hits) || 0, stale = num(s.stale) || 0, misses = num(s.misses) || 0;
        const bypass = num(s.bypass) || 0, requests = num(s.requests) || 0;
        const ratio = shownRatio(s.hit_ratio, hits, stale, misses);
        set("hit-ratio", percent(ratio));
        set("requests", int(requests));
        $("requests").classList.toggle("long", int(requests).length > 8);
        set("uptime", duration(s.uptime_s));
        document.title = "Breakwater · " + (ratio === null ? "no traffic" : percent(ratio) + " hit");

        const previous = samples[samples.length - 1];
        if (previous && requests < previous.requests) samples.length = 0;   // the proxy restarted
        const before = samples[samples.length - 1];
        const uptime = num(s.uptime_s);
        if (!before && uptime > 0 && uptime * 1000 < windowMs) {
          samples.push({ t: now - uptime * 1000, requests: 0, hits: 0, stale: 0, misses: 0 });   // all 0 at start
        }
        samples.push({ t: now, requests, hits, stale, misses });
        while (samples.length > 2 && samples[1].t < now - windowMs) samples.shift();
        const perSecond = before && now > before.t ? (requests - before.requests) * 1000 / (now - before.t) : null;
        set("requests-per-second", rate(perSecond));

        const results = { hit: hits, stale, miss: misses, bypass };
        const resultTotal = hits + stale + misses + bypass;
        const idOf = { hit: "hits", stale: "stale", miss: "misses", bypass: "bypass" };
        for (const key in results) {
          $("result-bar-" + key).style.flexGrow = String(results[key]);
          $("result-bar-" + key).title = key.toUpperCase() + ": " + int(results[key]);
          set(idOf[key], int(results[key]));
          set(idOf[key] + "-share", resultTotal ? percent(results[key] / resultTotal) : "—");
        }
        set("coalesced", int(s.coalesced));

        const cache = s.cache || {};
        const fill = num(cache.max_bytes) ? (num(cache.bytes) || 0) / cache.max_bytes : null;
        set("cache-fill", fill > 0 && fill < 0.001 ? "<0.1%" : percent(fill));
        const fillWidth = fill === null ? 0 : Math.min(100, Math.max(fill > 0 ? 0.5 : 0, fill * 100));
        $("cache-fill-bar").style.width = fillWidth + "%";
        $("cache-fill-bar").classList.toggle("high", fill !== null && fill > 0.9);
        set("cache-bytes", bytes(cache.bytes));
        set("cache-max-bytes", bytes(cache.max_bytes));
        set("cache-entries", int(cache.entries));
        set("cache-entries-unit", cache.entries === 1 ? "entry" : "entries");
        set("cache-evictions", int(cache.evictions));
        set("cache-expired", int(cache.expired));

        const upstream = s.upstream || {}, latency = upstream.latency_ms || {};
        set("upstream-p50", ms(latency.p50));
        set("upstream-p90", ms(latency.p90));
        set("upstream-p99", ms(latency.p99));
        set("upstream-requests", int(upstream.requests));
        set("upstream-errors", int(upstream.errors), (upstream.errors || 0) > 0);
        set("upstream-timeouts", int(upstream.timeouts), (upstream.timeouts || 0) > 0);
        const failed = (upstream.errors || 0) + (upstream.timeouts || 0);
        set("upstream-failed-share", upstream.requests ? percent(failed / upstream.requests) : "—", failed > 0);

        // Origin health: failures since the previous poll, else over the whole run.
        const prior = upstreamSamples.length ? upstreamSamples[upstreamSamples.length - 1] : null;
        const sent = (upstream.requests || 0) - (prior ? prior.requests : 0);
        const newFailures = failed - (prior ? prior.failed : 0);
        upstreamSamples.push({ requests: upstream.requests || 0, failed });
        if (upstreamSamples.length > 2) upstreamSamples.shift();
        const health = !prior ? (failed > 0 ? "failures seen" : "healthy")
          : newFailures > 0 ? "failing (" + int(newFailures) + " of " + int(sent) + " in the last poll)"
          : "healthy";
        set("origin-health", health, health.startsWith("fail"));
        if (s.redis) {
          const r = s.redis, rl = r.latency_ms || {};
          set("redis-state", r.connected ? "connected" : "down", !r.connected);
          set("redis-summary", r.connected ? "connected" : "down", !r.connected);
          setLines("redis-figures", [
            { text: "L2: " + int(r.l2_hits) + " hits, " + int(r.l2_misses) + " misses; registry: "
              + int(r.registry_hits) + " hits" },
            { text: int(r.errors) + " errors; p50 " + ms(rl.p50) + " ms, p99 " + ms(rl.p99) + " ms",
              bad: (r.errors || 0) > 0 },
          ]);
        }
        if (s.cdn) {
          const targets = Object.entries(s.cdn);
          const failing = targets.some(([, t]) => (t.failed || 0) > 0);
          set("cdn-state", failing ? "failures" : "ok", failing);
          set("cdn-summary", failing ? "failures" : "ok", failing);
          setLines("cdn-figures", targets.flatMap(([name, t]) => [
            { name, text: ": " + int(t.sent) + " sent, " + int(t.failed) + " failed, " + int(t.queued)
              + " queued, p99 " + ms((t.latency_ms || {}).p99) + " ms" },
          ].concat(t.last_error ? [{ text: "last error: " + t.last_error, bad: (t.failed || 0) > 0 }] : [])));
        }
        renderCounts("error-codes", s.errors || {}, true);
        renderCounts("statuses", s.responses || {}, false);

        if (s.snapshot) {
          const snap = s.snapshot;
          const written = snap.written_at ? new Date(snap.written_at * 1000).toISOString().slice(0, 19) + "Z" : null;
          set("snapshot-loaded", written
            ? int(snap.loaded) + " entries (" + int(snap.skipped) + " skipped) in " + ms(snap.took_ms) + " ms, written "
              + written
            : "none", (snap.skipped || 0) > 0 || (snap.write_failures || 0) > 0);
        }

        const apq = s.apq || {};
        set("apq-entries", int(apq.entries));
        set("apq-registered", int(apq.registered));
        set("apq-not-found", int(apq.not_found));
        set("apq-hash-mismatch", int(apq.hash_mismatch), (apq.hash_mismatch || 0) > 0);

        renderOperations(s.operations || {}, requests);
        renderFreshness(s.freshness || {});
        renderChart(now);
      }

      // A <dl> of name/count pairs, busiest first; codes come from the proxy, written as text.
      function renderCounts(id, counts, bad) {
        const list = document.createElement("dl");
        list.className = "kv num";
        list.id = id;
        const names = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || (a < b ? -1 : 1));
        for (const name of names) {
          const term = document.createElement("dt");
          term.textContent = name;
          const value = document.createElement("dd");
          value.textContent = int(counts[name]);
          if (bad && counts[name] > 0) value.className = "bad";
          list.append(term, value);
        }
        if (!names.length) {
          const term = document.createElement("dt");
          term.textContent = "none yet";
          list.append(term, document.createElement("dd"));
        }
        $(id).replaceWith(list);
      }

      function cell(row, text, className) {
        const td = document.createElement("td");
        td.textContent = text;
        if (className) td.className = className;
        row.appendChild(td);
        return td;
      }
      function emptyRow(body, text, columns) {
        const row = document.createElement("tr");
        row.className = "empty";
        cell(row, text).colSpan = columns;
        body.appendChild(row);
      }
      function renderOperations(operations, requests) {
        const names = Object.keys(operations);
        names.sort((a, b) => (operations[b].requests || 0) - (operations[a].requests || 0) || (a < b ? -1 : 1));
        const body = document.createElement("tbody");
        body.id = "ops-rows";
        for (const name of names.slice(0, topOperations)) {
          const o = operations[name] || {};
          const row = document.createElement("tr");
          row.dataset.operation = name;
          const label = cell(row, name === "" ? "(anonymous)" : name, "op");
          label.title = name;
          cell(row, int(o.requests), "n requests");
          cell(row, requests ? percent((o.requests || 0) / requests) : "—", "n share");
          const r = shownRatio(o.hit_ratio, o.hits, o.stale, o.misses);
          const ratioCell = cell(row, "", "ratio num");
          const mini = document.createElement("span");
          mini.className = "mini";
          const fillBar = document.createElement("span");
          fillBar.style.width = (r === null ? 0 : r * 100) + "%";
          mini.appendChild(fillBar);
          const ratioText = document.createElement("span");
          ratioText.className = "hit-ratio";
          ratioText.textContent = percent(r);
          ratioCell.append(mini, ratioText);
          cell(row, int(o.misses), "n misses");
          cell(row, int(o.bypass), "n bypass");
          cell(row, ms(o.p50_ms), "n p50");
          cell(row, ms(o.p99_ms), "n p99");
          body.appendChild(row);
        }
        if (!names.length) emptyRow(body, "no operations yet", 8);
        $("ops-rows").replaceWith(body);
        set("ops-count", names.length > topOperations ? "(top " + topOperations + " of " + names.length + ")" : "");
      }

      // Suggested TTLs from freshness samples (docs/FRESHNESS.md); "—" until enough samples.
      function ttl(v) {
        if (num(v) === null) return "—";
        return v < 10 ? (Math.floor(v * 10) / 10) + "s" : duration(v);
      }
      function renderFreshness(freshness) {
        const names = Object.keys(freshness).sort();
        const body = document.createElement("tbody");
        body.id = "fresh-rows";
        for (const name of names) {
          const f = freshness[name] || {};
          const row = document.createElement("tr");
          row.dataset.operation = name;
          cell(row, name, "op").title = name;
          cell(row, int(f.samples), "n samples");
          cell(row, int(f.changed), "n changed");
          cell(row, ttl(f.current_ttl_s), "n current-ttl");
          const suggested = f.too_fast_to_cache ? "too fast to cache" : ttl(f.suggested_ttl_s);
          const interval = cell(row, suggested, "n suggested-ttl");
          if (num(f.suggested_ttl_low_s) !== null) {
            interval.title = "95% interval: " + ttl(f.suggested_ttl_low_s) + " to " + ttl(f.suggested_ttl_high_s);
          }
          const stale = cell(row, num(f.stale_hit_ratio) === null ? "—" : percent(f.stale_hit_ratio), "n stale-hits");
          if (num(f.stale_hit_ratio) !== null && f.stale_hit_ratio > 0.05) stale.classList.add("bad");
          body.appendChild(row);
        }
        if (!names.length) emptyRow(body, "no samples yet", 6);
        $("fresh-rows").replaceWith(body);
      }

      const svgNS = "http://www.w3.org/2000/svg";
      function svg(parent, tag, attributes, text) {
        const el = document.createElementNS(svgNS, tag);
        for (const k in attributes) {
          const value = attributes[k];
          el.setAttribute(k, typeof value === "number" ? String(Math.round(value * 10) / 10) : value);
        }
        if (text !== undefined) el.textContent = text;
        parent.appendChild(el);
        return el;
      }
      // Hit ratio per poll interval from the counters' deltas, over requests/s bars, for the last 5 minutes.
      function renderChart(now) {
        const chart = $("chart");
        const width = Math.max(chart.clientWidth, 300), height = Math.max(chart.clientHeight, 120);
        const left = 40, right = 56, top = 8, bottom = 20;
        const plotW = width - left - right, plotH = height - top - bottom;
        chart.setAttribute("viewBox", "0 0 " + width + " " + height);
        chart.replaceChildren();
        const x = (t) => left + plotW * (1 - (now - t) / windowMs);
        const y = (r) => top + plotH * (1 - r);

        const intervals = [];
        for (let i = 1; i < samples.length; i++) {
          const a = samples[i - 1], b = samples[i];
          intervals.push({
            from: Math.max(a.t, now - windowMs), to: b.t,
            ratio: ratioOf(b.hits - a.hits, b.stale - a.stale, b.misses - a.misses),
            rate: (b.requests - a.requests) * 1000 / Math.max(1, b.t - a.t),
          });
        }
        const maxRate = Math.max(0, ...intervals.map((i) => i.rate));
        for (const i of intervals) {
          if (i.rate <= 0 || i.to <= now - windowMs) continue;
          const h = plotH * i.rate / (maxRate * 1.1);
          svg(chart, "rect", { x: x(i.from), y: top + plotH - h, width: Math.max(1, x(i.to) - x(i.from) - 1), height: h,
            fill: "#c5d5ea" });
        }
        for (const r of [0, 0.25, 0.5, 0.75, 1]) {
          const stroke = r === 0 ? "#aab1ba" : "#e3e6ea";
          svg(chart, "line", { x1: left, x2: left + plotW, y1: y(r), y2: y(r), stroke });
          svg(chart, "text", { x: left - 6, y: y(r) + 4, "text-anchor": "end" }, r * 100 + "%");
        }
        for (let m = 5; m >= 0; m--) {
          const anchor = m === 5 ? "start" : m === 0 ? "end" : "middle";
          const label = m ? "−" + m + " min" : "now";
          svg(chart, "text", { x: x(now - m * 60000), y: height - 4, "text-anchor": anchor }, label);
        }
        if (maxRate > 0) {
          svg(chart, "text", { x: left + plotW + 6, y: top + plotH - plotH / 1.1 + 4 }, rate(maxRate) + "/s");
        }
        let path = "", area = "", run = [];
        const flush = () => {
          if (!run.length) return;
          const line = run.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join("L");
          path += "M" + line;
          const first = run[0][0].toFixed(1), last = run[run.length - 1][0].toFixed(1);
          area += "M" + first + "," + y(0) + "L" + line + "L" + last + "," + y(0) + "Z";
          run = [];
        };
        const points = [];
        for (const i of intervals) {
          if (i.ratio === null || i.to <= now - windowMs) { flush(); continue; }
          run.push([x(i.to), y(i.ratio)]);
          points.push([x(i.to), y(i.ratio)]);
        }
        flush();
        svg(chart, "path", { d: area, fill: "rgba(43, 138, 62, 0.12)" });
        svg(chart, "path", { d: path, fill: "none", stroke: "#2b8a3e", "stroke-width": 2, "stroke-linejoin": "round" });
        if (points.length < 40) {
          for (const p of points) svg(chart, "circle", { cx: p[0], cy: p[1], r: 2.5, fill: "#2b8a3e" });
        }
        if (!points.length) {
          svg(chart, "text", { x: left + plotW / 2, y: top + plotH / 2, "text-anchor": "middle" },
            samples.length < 2 ? "collecting: a point every 2 s" : "no cacheable traffic in the last 5 minutes");
        }
      }

      function setStatus(live, reason) {
        document.body.classList.toggle("disconnected", !live);
        const status = $("status");
        status.className = live ? "live" : "disconnected";
        status.textContent = live ? "live" : "disconnected";
        if (!live) set("disconnected-reason", reason);
      }

      async function poll() {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), pollMs * 2);
        try {
          const response = await fetch("./stats", { cache: "no-store", signal: controller.signal,
            headers: { Accept: "application/json" } });
          if (!response.ok) throw new Error("stats answered HTTP " + response.status);
          const stats = await response.json();
          const now = Date.now();
          lastGood = now;
          render(stats, now);
          set("updated", new Date(now).toLocaleTimeString("en-GB"));
          setStatus(true);
        } catch (error) {
          const timedOut = error && error.name === "AbortError";
          setStatus(false, timedOut ? "stats did not answer within " + pollMs * 2 / 1000 + " s"
            : (error && error.message) || "no answer from stats");
          if (lastGood) set("updated", new Date(lastGood).toLocaleTimeString("en-GB") + " (stale)");
        } finally {
          clearTimeout(timer);
          setTimeout(poll, pollMs);
        }
      }
      addEventListener("resize", () => { if (samples.length) renderChart(samples[samples.length - 1].t); });
      poll();
    })();
    </script>
    </body>
    </html>
    """#
}

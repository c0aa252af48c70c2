// `GET /stats`: the report as compact JSON with the keys docs/OPERATING.md lists, written
// straight into bytes since every key and type is fixed.

extension StatsReport {
    /// The report as compact JSON: counts as integers, ratios and milliseconds to 3 decimals.
    package func json() -> [UInt8] {
        var writer = CompactJSON()
        writer.bytes.reserveCapacity(640 + requests.operations.count * 128)
        writer.openObject()
        writer.decimal("uptime_s", Self.seconds(uptime))
        writer.integer("requests", requests.requests)
        writer.openObject("protocols")
        writer.integer("http1", requests.requests - requests.http2Requests)
        writer.integer("http2", requests.http2Requests)
        writer.closeObject()
        writer.cacheResults(requests.results)
        writer.integer("coalesced", coalesced)

        writer.openObject("cache")
        writer.integer("entries", cache.entries)
        writer.integer("bytes", cache.bytes)
        writer.integer("max_bytes", cache.maxBytes)
        writer.integer("evictions", cache.evictions)
        writer.integer("expired", cache.expired)
        writer.closeObject()

        writer.openObject("apq")
        writer.integer("entries", apqEntries)
        writer.integer("registered", apqRegistered)
        writer.integer("not_found", requests.apqNotFound)
        writer.integer("hash_mismatch", requests.apqHashMismatch)
        writer.closeObject()

        writer.openObject("upstream")
        writer.integer("requests", requests.upstreamRequests)
        writer.integer("errors", requests.upstreamErrors)
        writer.integer("timeouts", requests.upstreamTimeouts)
        writer.integer("cancelled", cancelledFetches)
        writer.openObject("errors_by_reason")
        for (reason, count) in zip(UpstreamErrorReason.allCases, requests.upstreamErrorReasons) {
            writer.integer(reason.rawValue, count)
        }
        writer.closeObject()
        writer.openObject("latency_ms")
        for (key, p) in [("p50", 50.0), ("p90", 90), ("p99", 99)] {
            writer.decimal(key, Self.milliseconds(requests.upstreamDurations.percentile(p)))
        }
        writer.closeObject()
        writer.closeObject()

        writer.openObject("responses")
        for row in requests.responses.byStatus { writer.integer(row.status, row.count) }
        writer.closeObject()
        writer.openObject("errors")
        for (code, count) in requests.responses.errorCodes.sorted(by: { $0.key < $1.key }) {
            writer.integer(code, count)
        }
        writer.closeObject()
        writer.openObject("bypass_reasons")
        for (reason, count) in zip(BypassReason.allCases, requests.bypassReasons) where count > 0 {
            writer.integer(reason.rawValue, count)
        }
        writer.closeObject()
        writer.openObject("config")
        writer.integer("reloads", configReloads.successes)
        writer.integer("reload_failures", configReloads.failures)
        writer.decimal("last_reload_success_s", configReloads.lastSuccessTimestamp)
        writer.closeObject()
        writer.string("version", BuildInfo.version)

        writer.openObject("operations")
        for (name, row) in operationsBusiestFirst {
            writer.openObject(name)
            writer.integer("requests", row.requests)
            writer.cacheResults(row.results)
            writer.decimal("p50_ms", Self.milliseconds(row.latency.percentile(50)))
            writer.decimal("p99_ms", Self.milliseconds(row.latency.percentile(99)))
            writer.closeObject()
        }
        writer.closeObject()
        if let freshness { writer.freshness(freshness) }
        if let snapshot {
            writer.openObject("snapshot")
            writer.integer("loaded", snapshot.loaded)
            writer.integer("skipped", snapshot.skipped)
            writer.integer("bytes", snapshot.bytes)
            writer.decimal("took_ms", Self.milliseconds(snapshot.took))
            if let seconds = snapshot.writtenAtSeconds {
                writer.decimal("written_at", seconds)
            } else {
                writer.null("written_at")
            }
            writer.integer("written", snapshot.writtenEntries)
            writer.integer("write_failures", snapshot.writeFailures)
            writer.closeObject()
        }
        if let tracing { writer.tracing(tracing) }
        writer.closeObject()
        return writer.bytes
    }
}

/// Appends object members with their commas; just enough JSON for a fixed shape.
struct CompactJSON {
    var bytes: [UInt8] = []
    private var needsComma = false

    mutating func openObject(_ key: String? = nil) {
        if let key { memberKey(key) }
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func closeObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func integer(_ key: String, _ value: Int) {
        memberKey(key)
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    mutating func string(_ key: String, _ value: String) {
        memberKey(key)
        JSONWriter.quotedString(value, into: &bytes)
        needsComma = true
    }

    mutating func boolean(_ key: String, _ value: Bool) {
        memberKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    mutating func null(_ key: String) {
        memberKey(key)
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// A ratio or a duration, to 3 decimals at most (or `fractionDigits`).
    mutating func decimal(_ key: String, _ value: Double, fractionDigits: Int = 3) {
        memberKey(key)
        DecimalText.append(value, fractionDigits: fractionDigits, into: &bytes)
        needsComma = true
    }

    private mutating func memberKey(_ key: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        JSONWriter.quotedString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }
}

extension CompactJSON {
    /// `hits`, `misses`, `stale`, `bypass` and `hit_ratio`, as the whole report and each
    /// operation's row list them.
    fileprivate mutating func cacheResults(_ results: CacheResultCounts) {
        integer("hits", results.hits)
        integer("misses", results.misses)
        integer("stale", results.stale)
        integer("bypass", results.bypass)
        decimal("hit_ratio", results.hitRatio)
    }
}

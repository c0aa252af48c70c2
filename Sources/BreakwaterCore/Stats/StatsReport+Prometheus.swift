// `GET /metrics`: the report in the Prometheus text exposition format, version 0.0.4.

extension StatsReport {
    /// The `le` bounds of both duration histograms, with their label text as written.
    static let durationBuckets: [(label: String, bound: Duration)] = [
        ("0.0005", .microseconds(500)), ("0.001", .milliseconds(1)), ("0.0025", .microseconds(2_500)),
        ("0.005", .milliseconds(5)), ("0.01", .milliseconds(10)), ("0.025", .milliseconds(25)),
        ("0.05", .milliseconds(50)), ("0.1", .milliseconds(100)), ("0.25", .milliseconds(250)),
        ("0.5", .milliseconds(500)), ("1", .seconds(1)), ("2.5", .milliseconds(2_500)),
        ("5", .seconds(5)), ("10", .seconds(10)),
    ]

    /// The report as Prometheus text (format 0.0.4), every metric with its `# HELP` and `# TYPE`.
    ///
    /// Written by hand rather than through swift-prometheus: that library keeps shared metric
    /// objects behind locks and has the hot path update them, whereas here each event loop
    /// counts into a plain value of its own and the figures are summed only when read. The
    /// exposition format is a few line shapes, and the tests check them.
    package func prometheus() -> String {
        var text = Exposition()
        let stats = requests
        text.family("breakwater_requests_total", .counter, "Client requests with a cache decision, by X-Cache.")
        let byResult = [("hit", stats.hits), ("stale", stats.stale), ("miss", stats.misses), ("bypass", stats.bypass)]
        for (result, value) in byResult {
            text.sample("breakwater_requests_total", label: ("cache", result), value)
        }
        let singles: [(name: String, kind: Exposition.Kind, help: String, value: Int)] = [
            ("breakwater_requests_all_total", .counter, "Client requests, decided or not.", stats.requests),
            ("breakwater_upstream_requests_total", .counter, "Requests sent to the origin.", stats.upstreamRequests),
            ("breakwater_upstream_errors_total", .counter, "Failed origin requests.", stats.upstreamErrors),
            ("breakwater_upstream_timeouts_total", .counter, "Origin requests that timed out.", stats.upstreamTimeouts),
            ("breakwater_cache_entries", .gauge, "Responses held in the cache.", cache.entries),
            ("breakwater_cache_bytes", .gauge, "Bytes held in the cache.", cache.bytes),
            ("breakwater_cache_max_bytes", .gauge, "The configured cache.max_bytes.", cache.maxBytes),
            ("breakwater_cache_evictions_total", .counter, "Entries evicted to make room.", cache.evictions),
            ("breakwater_cache_expired_total", .counter, "Entries removed after they expired.", cache.expired),
            ("breakwater_apq_entries", .gauge, "Persisted queries held.", apqEntries),
            ("breakwater_apq_registered_total", .counter, "Persisted queries registered.", apqRegistered),
            ("breakwater_apq_not_found_total", .counter, "Hash-only requests for unknown hashes.", stats.apqNotFound),
            ("breakwater_apq_hash_mismatch_total", .counter, "Queries not matching their hash.", stats.apqHashMismatch),
            ("breakwater_coalesced_total", .counter, "Requests that waited on another's origin fetch.", coalesced),
        ]
        for single in singles {
            text.family(single.name, single.kind, single.help)
            text.sample(single.name, single.value)
        }
        text.family("breakwater_uptime_seconds", .gauge, "Seconds since the proxy started.")
        text.sample("breakwater_uptime_seconds", seconds: Self.seconds(uptime), fractionDigits: 3)
        text.histogram("breakwater_request_duration_seconds", "Client request durations.", stats.requestDurations)
        text.histogram("breakwater_upstream_duration_seconds", "Origin request durations.", stats.upstreamDurations)
        text.family("breakwater_operation_requests_total", .counter, "Client requests by operationName.")
        for (name, row) in operationsBusiestFirst {
            text.sample("breakwater_operation_requests_total", label: ("operation", name), row.requests)
        }
        return String(decoding: text.bytes, as: UTF8.self)
    }
}

/// Appends metric families and samples in the text exposition format.
private struct Exposition {
    enum Kind: String { case counter, gauge, histogram }

    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(4_096) }

    /// The `# HELP` and `# TYPE` lines that open a family; `help` holds no backslash or newline.
    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        append("# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n")
    }

    mutating func sample(_ name: String, label: (name: String, value: String)? = nil, _ value: Int) {
        series(name, label: label)
        append(" \(value)\n")
    }

    mutating func sample(_ name: String, seconds: Double, fractionDigits: Int) {
        series(name, label: nil)
        bytes.append(UInt8(ascii: " "))
        DecimalText.append(seconds, fractionDigits: fractionDigits, into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Cumulative `_bucket` samples ending with `+Inf`, then `_sum` in seconds and `_count`.
    mutating func histogram(_ name: String, _ help: String, _ histogram: LatencyHistogram) {
        family(name, .histogram, help)
        let buckets = StatsReport.durationBuckets
        let counts = histogram.cumulativeCounts(upperBounds: buckets.map(\.bound))
        for (bucket, count) in zip(buckets, counts) {
            sample(name + "_bucket", label: ("le", bucket.label), count)
        }
        sample(name + "_bucket", label: ("le", "+Inf"), histogram.count)
        // Microseconds are the histogram's resolution, so six decimals lose nothing.
        sample(name + "_sum", seconds: StatsReport.seconds(histogram.sum), fractionDigits: 6)
        sample(name + "_count", histogram.count)
    }

    /// `name` and, when given, `{label="value"}` with the value escaped as the format requires.
    private mutating func series(_ name: String, label: (name: String, value: String)?) {
        append(name)
        guard let label else { return }
        append("{\(label.name)=\"")
        for byte in label.value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\"}")
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}

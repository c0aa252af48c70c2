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
        text.family("breakwater_requests_by_protocol_total", .counter, "Client requests, by the HTTP version they arrived over.")
        text.sample("breakwater_requests_by_protocol_total", label: ("protocol", "http1"), stats.requests - stats.http2Requests)
        text.sample("breakwater_requests_by_protocol_total", label: ("protocol", "http2"), stats.http2Requests)
        let singles: [(name: String, kind: Exposition.Kind, help: String, value: Int)] = [
            ("breakwater_requests_all_total", .counter, "Client requests, decided or not.", stats.requests),
            ("breakwater_upstream_requests_total", .counter, "Requests sent to the origin.", stats.upstreamRequests),
            ("breakwater_upstream_timeouts_total", .counter, "Origin requests that timed out.", stats.upstreamTimeouts),
            (
                "breakwater_upstream_cancelled_total", .counter,
                "Origin fetches stopped because every client waiting on them left.", cancelledFetches
            ),
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
        text.family(
            "breakwater_upstream_errors_total", .counter,
            "Failed origin requests by reason (refused, reset, timeout, tls, malformed, 5xx).")
        for (reason, count) in zip(UpstreamErrorReason.allCases, stats.upstreamErrorReasons) {
            text.sample("breakwater_upstream_errors_total", labels: [("reason", reason.rawValue)], count)
        }
        text.family("breakwater_bypass_total", .counter, "BYPASS answers by the reason nothing was stored or served.")
        for (reason, count) in zip(BypassReason.allCases, stats.bypassReasons) {
            text.sample("breakwater_bypass_total", labels: [("reason", reason.rawValue)], count)
        }
        text.family("breakwater_uptime_seconds", .gauge, "Seconds since the proxy started.")
        text.sample("breakwater_uptime_seconds", seconds: Self.seconds(uptime), fractionDigits: 3)
        text.family(
            "breakwater_config_reloads_total", .counter, "Configuration reloads (SIGHUP) by result.")
        text.sample("breakwater_config_reloads_total", labels: [("result", "success")], configReloads.successes)
        text.sample("breakwater_config_reloads_total", labels: [("result", "failure")], configReloads.failures)
        text.family(
            "breakwater_config_last_reload_success_timestamp_seconds", .gauge,
            "When the running configuration was loaded (start or last successful reload), Unix seconds.")
        text.sample(
            "breakwater_config_last_reload_success_timestamp_seconds", seconds: configReloads.lastSuccessTimestamp,
            fractionDigits: 3)
        let operationRows = labelledOperationRows
        text.family(
            "breakwater_request_duration_seconds", .histogram, "Client request durations by operation and X-Cache.")
        for (name, row) in operationRows {
            for (cache, buckets) in row.requestDurations.recorded {
                text.histogram(
                    "breakwater_request_duration_seconds", labels: [("operation", name), ("cache", cache)], buckets)
            }
        }
        text.family(
            "breakwater_upstream_duration_seconds", .histogram,
            "Origin request durations by operation and how the fetch ended (miss: stored, bypass: not stored).")
        for (name, row) in operationRows {
            for (cache, buckets) in row.upstreamDurations.recorded {
                text.histogram(
                    "breakwater_upstream_duration_seconds", labels: [("operation", name), ("cache", cache)], buckets)
            }
        }
        text.family(
            "breakwater_operation_requests_total", .counter,
            "Client requests by operationName (configured and busiest names, the rest as other).")
        for (name, row) in operationRows {
            text.sample("breakwater_operation_requests_total", labels: [("operation", name)], row.requests)
        }
        text.family("breakwater_operation_cache_total", .counter, "Cache decisions by operationName and X-Cache.")
        for (name, row) in operationRows {
            for (result, value) in [("hit", row.hits), ("stale", row.stale), ("miss", row.misses), ("bypass", row.bypass)] {
                text.sample("breakwater_operation_cache_total", labels: [("operation", name), ("cache", result)], value)
            }
        }
        let responses = stats.responses
        text.family("breakwater_responses_total", .counter, "Answers by HTTP status.")
        for row in Self.withKnownStatuses(responses.byStatus) {
            text.sample("breakwater_responses_total", labels: [("status", row.status)], row.count)
        }
        text.family("breakwater_errors_total", .counter, "GraphQL error codes of the error answers Breakwater made.")
        var codes = responses.errorCodes
        for code in GraphQLErrorResponse.answeredCodes where codes[code] == nil { codes[code] = 0 }
        for (code, count) in codes.sorted(by: { $0.key < $1.key }) {
            text.sample("breakwater_errors_total", labels: [("code", code)], count)
        }
        text.family("breakwater_client_requests_total", .counter, "Requests by apollographql-client-name and -version.")
        for row in responses.byClient {
            text.sample(
                "breakwater_client_requests_total", labels: [("client_name", row.name), ("client_version", row.version)],
                row.count)
        }
        text.family("breakwater_build_info", .gauge, "Always 1; the version of this build.")
        text.sample("breakwater_build_info", labels: [("version", BuildInfo.version)], 1)
        if let process { text.process(process) }
        if let freshness { text.freshness(freshness) }
        if let snapshot {
            let figures: [(name: String, kind: Exposition.Kind, help: String, value: Int)] = [
                ("breakwater_snapshot_loaded_entries", .gauge, "Cache entries the start loaded from the snapshot.",
                 snapshot.loaded),
                ("breakwater_snapshot_skipped_records", .gauge, "Damaged snapshot records the start passed over.",
                 snapshot.skipped),
                ("breakwater_snapshot_bytes", .gauge, "Bytes of the entries the start loaded from the snapshot.",
                 snapshot.bytes),
                ("breakwater_snapshot_written_entries", .gauge, "Entries the last snapshot write wrote.",
                 snapshot.writtenEntries),
                ("breakwater_snapshot_write_failures_total", .counter, "Snapshot writes that failed.",
                 snapshot.writeFailures),
            ]
            for figure in figures {
                text.family(figure.name, figure.kind, figure.help)
                text.sample(figure.name, figure.value)
            }
            text.family("breakwater_snapshot_load_seconds", .gauge, "How long the start took to load the snapshot.")
            text.sample("breakwater_snapshot_load_seconds", seconds: Self.seconds(snapshot.took), fractionDigits: 6)
            text.family(
                "breakwater_snapshot_written_timestamp_seconds", .gauge,
                "When the loaded snapshot was written, Unix seconds (0: none loaded).")
            text.sample(
                "breakwater_snapshot_written_timestamp_seconds", seconds: snapshot.writtenAtSeconds ?? 0,
                fractionDigits: 3)
        }
        if let tracing { text.tracing(tracing) }
        return String(decoding: text.bytes, as: UTF8.self)
    }

    /// `rows` with a 0 row for each status Breakwater answers itself that has none, in status
    /// order (`other` last): `increase()` then sees a status's first answers.
    private static func withKnownStatuses(_ rows: [(status: String, count: Int)]) -> [(status: String, count: Int)] {
        var counts: [Int: Int] = [:]
        var other: Int?
        for row in rows {
            if let status = Int(row.status) { counts[status] = row.count } else { other = row.count }
        }
        for status in GraphQLErrorResponse.answeredStatuses where counts[status] == nil { counts[status] = 0 }
        var all = counts.sorted { $0.key < $1.key }.map { (status: String($0.key), count: $0.value) }
        if let other { all.append((ResponseCounters.other, other)) }
        return all
    }
}

/// Appends metric families and samples in the text exposition format.
struct Exposition {
    enum Kind: String { case counter, gauge, histogram }

    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(4_096) }

    /// The `# HELP` and `# TYPE` lines that open a family; `help` holds no backslash or newline.
    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        append("# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n")
    }

    mutating func sample(_ name: String, label: (name: String, value: String)? = nil, _ value: Int) {
        series(name, labels: label.map { [$0] } ?? [])
        append(" \(value)\n")
    }

    mutating func sample(_ name: String, labels: [(name: String, value: String)], _ value: Int) {
        series(name, labels: labels)
        append(" \(value)\n")
    }

    mutating func sample(
        _ name: String, labels: [(name: String, value: String)] = [], seconds: Double, fractionDigits: Int
    ) {
        series(name, labels: labels)
        bytes.append(UInt8(ascii: " "))
        DecimalText.append(seconds, fractionDigits: fractionDigits, into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// One label set's cumulative `_bucket` samples ending with `+Inf`, then `_sum` in seconds
    /// and `_count` (the family's `# HELP` and `# TYPE` written before).
    mutating func histogram(_ name: String, labels: [(name: String, value: String)], _ buckets: DurationBuckets) {
        for (bound, count) in zip(StatsReport.durationBuckets, buckets.cumulativeCounts) {
            sample(name + "_bucket", labels: labels + [("le", bound.label)], count)
        }
        sample(name + "_bucket", labels: labels + [("le", "+Inf")], buckets.count)
        // Microseconds are the recording's resolution, so six decimals lose nothing.
        sample(name + "_sum", labels: labels, seconds: StatsReport.seconds(buckets.sum), fractionDigits: 6)
        sample(name + "_count", labels: labels, buckets.count)
    }

    /// The standard `process_*` families of Prometheus client libraries.
    mutating func process(_ figures: ProcessFigures) {
        let gauges: [(String, String, Int)] = [
            ("process_resident_memory_bytes", "Resident memory size in bytes.", figures.residentMemoryBytes),
            ("process_virtual_memory_bytes", "Virtual memory size in bytes.", figures.virtualMemoryBytes),
            ("process_open_fds", "Number of open file descriptors.", figures.openFileDescriptors),
            ("process_max_fds", "Maximum number of open file descriptors.", figures.maxFileDescriptors),
        ]
        for (name, help, value) in gauges {
            family(name, .gauge, help)
            sample(name, value)
        }
        family("process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.")
        sample("process_cpu_seconds_total", seconds: figures.cpuSeconds, fractionDigits: 2)
        family("process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.")
        sample("process_start_time_seconds", seconds: figures.startTimeSeconds, fractionDigits: 3)
    }

    /// `name` and, when given, `{a="x",b="y"}` with the values escaped as the format requires.
    private mutating func series(_ name: String, labels: [(name: String, value: String)]) {
        append(name)
        guard !labels.isEmpty else { return }
        append("{")
        for (index, label) in labels.enumerated() {
            if index > 0 { append(",") }
            append("\(label.name)=\"")
            for byte in label.value.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): append("\\\\")
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\n"): append("\\n")
                default: bytes.append(byte)
                }
            }
            append("\"")
        }
        append("}")
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}

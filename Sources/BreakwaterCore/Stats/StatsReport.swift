// The figures the admin endpoints show (docs/OPERATING.md, "Metrics"), gathered in one value: the merged
// per-loop request statistics plus the shared store's and registry's counts. Rendered as JSON
// in `StatsReport+JSON.swift` and as Prometheus text in `StatsReport+Prometheus.swift`.

/// Everything `GET /stats` and `GET /metrics` report, read at one moment.
package struct StatsReport: Sendable {
    /// Time since the proxy started.
    package var uptime: Duration
    /// Every event loop's statistics, merged.
    package var requests: RequestStatistics
    /// The response store's figures.
    package var cache: StoreStatistics
    /// Persisted queries held now.
    package var apqEntries: Int
    /// Persisted queries registered since start.
    package var apqRegistered: Int
    /// Requests that waited on another request's upstream fetch instead of sending their own.
    package var coalesced: Int
    /// Origin fetches stopped because every client waiting on them left (a reset stream, a
    /// closed connection).
    package var cancelledFetches = 0
    /// The process's resource use, when it could be read.
    package var process: ProcessFigures?
    /// Operation names that always get their own `operation` label in `/metrics` (those named
    /// in `cache.rules`); the busiest others join them up to `labelledOperations`.
    package var configuredOperations: Set<String>
    /// Reloads of the configuration file (`SIGHUP`).
    package var configReloads: ConfigReloadFigures
    /// The freshness samples and estimates (docs/FRESHNESS.md), when sampling is configured.
    package var freshness: FreshnessReport?
    /// The cache snapshot's load and writes, when `cache.snapshot` is set.
    package var snapshot: SnapshotFigures?
    /// The span exporter's figures, when `tracing.otlp_endpoint` is set.
    package var tracing: TraceExportFigures?

    /// Busiest operation names labelled in `/metrics` besides the configured ones; the rest are
    /// summed as `operation="other"`, so a client cannot grow the series count.
    package static let labelledOperations = 20

    package init(
        uptime: Duration,
        requests: RequestStatistics,
        cache: StoreStatistics,
        apqEntries: Int,
        apqRegistered: Int,
        coalesced: Int,
        process: ProcessFigures? = nil,
        configuredOperations: Set<String> = [],
        configReloads: ConfigReloadFigures = ConfigReloadFigures(lastSuccessTimestamp: 0)
    ) {
        self.uptime = uptime
        self.requests = requests
        self.cache = cache
        self.apqEntries = apqEntries
        self.apqRegistered = apqRegistered
        self.coalesced = coalesced
        self.process = process
        self.configuredOperations = configuredOperations
        self.configReloads = configReloads
    }

    /// The `operation` label rows of `/metrics`: configured names and the busiest others by
    /// name, everything else summed under `other`.
    var labelledOperationRows: [(name: String, statistics: OperationStatistics)] {
        var rows: [(name: String, statistics: OperationStatistics)] = []
        var other = OperationStatistics()
        var busiestLeft = Self.labelledOperations
        for (name, row) in operationsBusiestFirst {
            if configuredOperations.contains(name) {
                rows.append((name, row))
            } else if busiestLeft > 0 && name != RequestStatistics.otherOperationName {
                rows.append((name, row))
                busiestLeft -= 1
            } else {
                other.merge(row)
            }
        }
        if other.requests > 0 { rows.append((ResponseCounters.other, other)) }
        return rows
    }

    /// The operation rows, busiest first and then by name, so both renderings list them alike.
    var operationsBusiestFirst: [(name: String, statistics: OperationStatistics)] {
        requests.operations
            .sorted { ($0.value.requests, $1.key) > ($1.value.requests, $0.key) }
            .map { (name: $0.key, statistics: $0.value) }
    }

    /// `duration` in seconds, to the attosecond as far as a `Double` holds it.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// `duration` in milliseconds.
    static func milliseconds(_ duration: Duration) -> Double {
        seconds(duration) * 1_000
    }
}

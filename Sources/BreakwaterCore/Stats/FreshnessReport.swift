// The freshness figures of `/stats` (`freshness`) and `/metrics` (`breakwater_freshness_*`),
// docs/FRESHNESS.md: per operation, the samples and what they say.

/// The freshness estimates of every sampled operation, read at one moment.
package struct FreshnessReport: Sendable, Equatable {
    package var settings: FreshnessSettings
    /// By operation name, sorted by name.
    package var rows: [(name: String, estimate: FreshnessEstimate)]

    package init(settings: FreshnessSettings, estimates: [String: FreshnessEstimate]) {
        self.settings = settings
        rows = estimates.sorted { $0.key < $1.key }.map { (name: $0.key, estimate: $0.value) }
    }

    package static func == (lhs: FreshnessReport, rhs: FreshnessReport) -> Bool {
        lhs.settings == rhs.settings && lhs.rows.map(\.name) == rhs.rows.map(\.name)
            && lhs.rows.map(\.estimate) == rhs.rows.map(\.estimate)
    }
}

extension CompactJSON {
    /// `"freshness": {"<operation>": {samples, changed, median_change_s, p10_change_s,
    /// current_ttl_s, stale_hit_ratio, target, suggested_ttl_s, suggested_ttl_low_s,
    /// suggested_ttl_high_s, too_fast_to_cache}}`, times null until they are known
    /// (docs/reference/admin.md).
    mutating func freshness(_ report: FreshnessReport) {
        openObject("freshness")
        for (name, estimate) in report.rows {
            openObject(name)
            integer("samples", estimate.samples)
            integer("changed", estimate.changed)
            optionalDecimal("median_change_s", estimate.medianChangeSeconds)
            optionalDecimal("p10_change_s", estimate.p10ChangeSeconds)
            optionalDecimal("current_ttl_s", estimate.currentTTLSeconds)
            optionalDecimal("stale_hit_ratio", estimate.staleHitRatio)
            decimal("target", estimate.target, fractionDigits: 4)
            optionalDecimal("suggested_ttl_s", estimate.suggestedTTLSeconds)
            optionalDecimal("suggested_ttl_low_s", estimate.interval?.lowSeconds)
            optionalDecimal("suggested_ttl_high_s", estimate.interval?.highSeconds)
            boolean("too_fast_to_cache", estimate.suggestion == .tooFastToCache)
            closeObject()
        }
        closeObject()
    }

    private mutating func optionalDecimal(_ key: String, _ value: Double?) {
        if let value { decimal(key, value) } else { null(key) }
    }
}

extension Exposition {
    /// `breakwater_freshness_samples_total{operation,changed}` and
    /// `breakwater_freshness_suggested_ttl_seconds{operation}` (operations with an estimate).
    mutating func freshness(_ report: FreshnessReport) {
        family(
            "breakwater_freshness_samples_total", .counter,
            "Freshness sampling fetches by operation and whether the answer had changed.")
        for (name, estimate) in report.rows {
            sample(
                "breakwater_freshness_samples_total", labels: [("operation", name), ("changed", "true")],
                estimate.changed)
            sample(
                "breakwater_freshness_samples_total", labels: [("operation", name), ("changed", "false")],
                estimate.samples - estimate.changed)
        }
        family(
            "breakwater_freshness_suggested_ttl_seconds", .gauge,
            "The suggested TTL: the lower end of a 95 % interval for the longest TTL at which "
                + "cache.freshness.target of hits would be fresh; 0: too fast to cache.")
        for (name, estimate) in report.rows {
            guard let suggested = estimate.suggestedTTLSeconds else { continue }
            sample(
                "breakwater_freshness_suggested_ttl_seconds", labels: [("operation", name)], seconds: suggested,
                fractionDigits: 3)
        }
    }
}

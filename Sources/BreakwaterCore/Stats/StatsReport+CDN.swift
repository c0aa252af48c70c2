// The CDN purger's figures in `/stats` (the `cdn` block, docs/CDN.md) and `/metrics`
// (`breakwater_cdn_*`), added to the report's renderings when `cdn.targets` is set.

/// One target's figures, under the name it goes by (`CDNTarget.labels`).
package struct CDNTargetStatus: Sendable, Equatable {
    package var label: String
    package var kind: CDNTarget.Kind
    package var statistics: CDNTargetStatistics

    package init(label: String, kind: CDNTarget.Kind, statistics: CDNTargetStatistics) {
        (self.label, self.kind, self.statistics) = (label, kind, statistics)
    }
}

extension StatsReport {
    /// The results `breakwater_cdn_purges_total` counts calls under, each from the start.
    package static let cdnResults = ["sent", "failed", "retried"]

    /// `json` (an object) with a `cdn` member appended: per target `kind`, `purges`, `sent`,
    /// `failed`, `retried`, `queued`, `overflows`, `collapses`, `lost`, `last_error`, `latency_ms`
    /// {`p50`, `p99`}.
    package static func appendingCDN(_ targets: [CDNTargetStatus], to json: [UInt8]) -> [UInt8] {
        var bytes = json
        guard !targets.isEmpty, bytes.last == UInt8(ascii: "}") else { return bytes }
        bytes.removeLast()
        bytes.append(contentsOf: ",\"cdn\":{".utf8)
        for (index, target) in targets.enumerated() {
            let figures = target.statistics
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.quotedString(target.label, into: &bytes)
            bytes.append(contentsOf: ":{\"kind\":\"\(target.kind.rawValue)\",\"purges\":\(figures.purges)".utf8)
            bytes.append(contentsOf: ",\"sent\":\(figures.sent),\"failed\":\(figures.failed)".utf8)
            bytes.append(contentsOf: ",\"retried\":\(figures.retried),\"queued\":\(figures.queued)".utf8)
            bytes.append(contentsOf: ",\"overflows\":\(figures.overflows),\"collapses\":\(figures.collapses)".utf8)
            bytes.append(contentsOf: ",\"lost\":\(figures.lost),\"last_error\":".utf8)
            if let error = figures.lastError {
                JSONWriter.quotedString(error, into: &bytes)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
            bytes.append(contentsOf: ",\"latency_ms\":{".utf8)
            for (position, (key, p)) in [("p50", 50.0), ("p99", 99)].enumerated() {
                bytes.append(contentsOf: ((position == 0 ? "" : ",") + "\"\(key)\":").utf8)
                if figures.latency.count == 0 {
                    bytes.append(contentsOf: "null".utf8)
                } else {
                    DecimalText.append(milliseconds(figures.latency.percentile(p)), fractionDigits: 3, into: &bytes)
                }
            }
            bytes.append(contentsOf: "}}".utf8)
        }
        bytes.append(contentsOf: "}}".utf8)
        return bytes
    }

    /// `text` followed by `breakwater_cdn_purges_total{target,result}`,
    /// `breakwater_cdn_queued{target}`, `breakwater_cdn_overflows_total{target}`,
    /// `breakwater_cdn_collapses_total{target}`, `breakwater_cdn_lost_total{target}` and
    /// `breakwater_cdn_purge_duration_seconds{target}`.
    package static func appendingCDN(_ targets: [CDNTargetStatus], to text: String) -> String {
        guard !targets.isEmpty else { return text }
        var exposition = Exposition()
        exposition.family(
            "breakwater_cdn_purges_total", .counter,
            "Purge calls to the CDN targets: sent (taken), failed (given up), retried (an attempt failed).")
        for target in targets {
            let figures = target.statistics
            for (result, value) in zip(cdnResults, [figures.sent, figures.failed, figures.retried]) {
                exposition.sample(
                    "breakwater_cdn_purges_total", labels: [("target", target.label), ("result", result)], value)
            }
        }
        exposition.family("breakwater_cdn_queued", .gauge, "Purges waiting to be sent to a CDN target.")
        for target in targets {
            exposition.sample("breakwater_cdn_queued", labels: [("target", target.label)], target.statistics.queued)
        }
        exposition.family(
            "breakwater_cdn_overflows_total", .counter,
            "Times a CDN target's queue passed cdn.max_queue and purged its entities' types instead"
                + " (everything, for an admin purge).")
        for target in targets {
            exposition.sample(
                "breakwater_cdn_overflows_total", labels: [("target", target.label)], target.statistics.overflows)
        }
        exposition.family(
            "breakwater_cdn_collapses_total", .counter,
            "Types whose ids a CDN target was sent as the type's tag (too many in one purge, or past cdn.max_queue).")
        for target in targets {
            exposition.sample(
                "breakwater_cdn_collapses_total", labels: [("target", target.label)], target.statistics.collapses)
        }
        exposition.family(
            "breakwater_cdn_lost_total", .counter, "Purges a CDN target never got because the process stopped first.")
        for target in targets {
            exposition.sample("breakwater_cdn_lost_total", labels: [("target", target.label)], target.statistics.lost)
        }
        exposition.family(
            "breakwater_cdn_purge_duration_seconds", .histogram, "Time from sending a purge call to its answer.")
        for target in targets {
            exposition.histogram(
                "breakwater_cdn_purge_duration_seconds", labels: [("target", target.label)], target.statistics.durations)
        }
        return text + String(decoding: exposition.bytes, as: UTF8.self)
    }
}

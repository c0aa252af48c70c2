// `breakwater advise` (docs/FRESHNESS.md): the `freshness` figures
// of a running proxy's `/stats`, turned into a `cache.rules` snippet with the evidence beside
// each rule as comments.

/// A `cache.rules` YAML snippet from `/stats` JSON.
package enum FreshnessAdvice {
    /// Why `/stats` could not be read.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The snippet for the `/stats` body `stats`, read from `source`; `target` is the proxy's
    /// `cache.freshness.target` when known.
    package static func snippet(stats: [UInt8], source: String, target: Double?) throws(Failure) -> String {
        let root: JSONValue
        do {
            root = try JSONParser.parse(stats)
        } catch {
            throw Failure(description: "\(source) did not answer JSON: \(error)")
        }
        guard let freshness = root["freshness"], case .object(let operations) = freshness else {
            throw Failure(description: "\(source) reports no freshness figures (a Breakwater without cache.freshness?)")
        }
        var lines = ["# cache.rules suggested from the freshness samples of \(source)"]
        if let target {
            lines.append("# (each TTL: the longest at which \(percent(target)) of hits would be fresh, cache.freshness.target)")
        } else {
            lines.append("# (each TTL: the longest at which cache.freshness.target of hits would be fresh)")
        }
        if operations.isEmpty { lines.append("# no operation has been sampled yet") }
        lines.append("cache:")
        lines.append("  rules:")
        for (name, row) in operations.sorted(by: { $0.key < $1.key }) {
            let samples = integer(row["samples"]) ?? 0
            let changed = integer(row["changed"]) ?? 0
            guard let suggested = number(row["suggested_ttl_s"]) else {
                lines.append(
                    "    # \(name): \(samples) samples, not enough yet (\(FreshnessEstimate.minimumSamples) needed): no suggestion")
                continue
            }
            var evidence = "    # \(name): \(samples) samples, \(changed) changed"
            if changed == 0 {
                evidence += "; no change seen in answers up to \(duration(suggested)) old"
            } else {
                let median = number(row["median_change_s"]).map(duration) ?? "beyond the ages sampled"
                let p10 = number(row["p10_change_s"]).map(duration) ?? "beyond the ages sampled"
                evidence += "; time to change: median \(median), 10th percentile \(p10)"
            }
            lines.append(evidence)
            if let current = number(row["current_ttl_s"]), let stale = number(row["stale_hit_ratio"]) {
                lines.append("    # at the current TTL (\(duration(current))) about \(percent(stale)) of hits are stale")
            }
            if suggested == 0 { lines.append("    # its answers change too fast to cache at this target") }
            lines.append("    - operation: \(yamlName(name))")
            lines.append("      ttl: \(duration(suggested))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Seconds as a configuration duration, rounded down (to 100 ms below 10 s, else to seconds).
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0s" }
        if seconds >= 10 { return Duration.seconds(Int64(seconds)).configText }
        return Duration.milliseconds(Int64(seconds * 10) * 100).configText
    }

    private static func percent(_ share: Double) -> String {
        let value = (share * 1000).rounded() / 10
        return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
    }

    private static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let text)? = value else { return nil }
        return Double(text)
    }

    private static func integer(_ value: JSONValue?) -> Int? {
        number(value).map { Int($0) }
    }

    /// The name as a YAML scalar: plain when it is a GraphQL name, else quoted.
    private static func yamlName(_ name: String) -> String {
        name.isIdentifierName ? name : yamlQuoted(name)
    }
}

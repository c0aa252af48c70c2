// `breakwater advise` (docs/FRESHNESS.md): the `freshness` figures of a running proxy's
// `/stats`, turned into `cache.rules` entries with the evidence beside each as comments, to
// merge into a configuration by hand or with `CacheRulesMerge`.

/// `cache.rules` entries from `/stats` JSON.
package struct FreshnessAdvice: Sendable, Equatable {
    /// Why `/stats` could not be read.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// What the samples say about one operation.
    package struct Entry: Sendable, Equatable {
        package var operation: String
        /// The TTL to set, as configuration text (`4200ms`); nil when there is none to suggest
        /// (too few samples, undecided, or too fast to cache): the evidence says why.
        package var ttl: String?
        /// The evidence, one comment line each, without the `# `.
        package var evidence: [String]
    }

    /// What the entries rest on, one comment line each, without the `# `.
    package var header: [String]
    /// By operation name.
    package var entries: [Entry]

    /// The advice in the `/stats` body `stats`, read from `source`.
    package init(stats: [UInt8], source: String) throws(Failure) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(stats)
        } catch {
            throw Failure(description: "\(source) did not answer JSON: \(error)")
        }
        guard let freshness = root["freshness"], case .object(let operations) = freshness else {
            throw Failure(description: "\(source) reports no freshness figures (a Breakwater without cache.freshness?)")
        }
        let rows = operations.sorted { $0.key < $1.key }
        let target = rows.lazy.compactMap { Self.number($0.value["target"]) }.first
        let fresh = target.map(Self.percent) ?? "cache.freshness.target"
        let stale = target.map { Self.percent(1 - $0) } ?? "the rest"
        let confidence = Self.percent(FreshnessInterval.confidence)
        header = [
            "cache.rules entries suggested from the freshness samples of \(source)",
            "each TTL: the lower end of a \(confidence) interval for the longest TTL at which \(fresh) of hits",
            "are fresh (cache.freshness.target), so at most \(stale) of hits are stale at \(confidence) confidence",
        ]
        if rows.isEmpty { header.append("no operation has been sampled yet") }
        entries = rows.map { name, row in Self.entry(name, row, fresh: fresh, stale: stale) }
    }

    /// The entries as lines to put under `cache.rules:` of a configuration laid out as the
    /// shipped config.yaml (list items indented by four spaces), evidence as comments.
    package var snippet: String {
        var lines = header.map { "# \($0)" }
        lines.append("# add them under cache.rules (replacing rules for the same operations), or print the whole")
        lines.append("# configuration with them merged: breakwater advise --merge config.yaml")
        for entry in entries {
            lines += entry.evidence.map { "    # \($0)" }
            if let ttl = entry.ttl {
                lines.append("    - operation: \(Self.yamlName(entry.operation))")
                lines.append("      ttl: \(ttl)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rules to merge into a configuration (`CacheRulesMerge`).
    package var rules: [CacheRulesMerge.Rule] {
        entries.map { CacheRulesMerge.Rule(operation: $0.operation, ttl: $0.ttl, comments: $0.evidence) }
    }

    private static func entry(_ name: String, _ row: JSONValue, fresh: String, stale: String) -> Entry {
        let samples = integer(row["samples"]) ?? 0
        let changed = integer(row["changed"]) ?? 0
        guard let low = number(row["suggested_ttl_low_s"]), let high = number(row["suggested_ttl_high_s"]) else {
            let needed = FreshnessEstimate.minimumSamples
            return Entry(
                operation: name, ttl: nil,
                evidence: ["\(name): \(samples) samples, not enough yet (\(needed) needed): no suggestion"])
        }
        var evidence: [String]
        if changed == 0 {
            evidence = ["\(name): \(samples) samples, 0 changed; no change seen in answers up to \(duration(high)) old"]
        } else {
            let median = number(row["median_change_s"]).map(duration) ?? "beyond the ages sampled"
            let p10 = number(row["p10_change_s"]).map(duration) ?? "beyond the ages sampled"
            evidence = [
                "\(name): \(samples) samples, \(changed) changed; time to change: median \(median), 10th percentile \(p10)"
            ]
        }
        if let current = number(row["current_ttl_s"]), let ratio = number(row["stale_hit_ratio"]) {
            evidence.append("at the current TTL (\(duration(current))) about \(percent(ratio)) of hits are stale")
        }
        let confidence = percent(FreshnessInterval.confidence)
        evidence.append(
            "longest TTL with \(fresh) of hits fresh: \(duration(low)) to \(duration(high)) (\(confidence) interval)")
        let minimum = duration(FreshnessEstimate.minimumUsefulTTLSeconds)
        if row["too_fast_to_cache"] == .bool(true) {
            evidence.append(
                "\(name) changes too fast to cache: any TTL of \(minimum) or more leaves over \(stale) of hits stale")
            return Entry(operation: name, ttl: nil, evidence: evidence)
        }
        guard let suggested = number(row["suggested_ttl_s"]), suggested >= FreshnessEstimate.minimumUsefulTTLSeconds
        else {
            evidence.append(
                "\(name): no suggestion yet: the samples do not show \(minimum) or more to be fresh enough at "
                    + "\(confidence) confidence; more samples younger than \(duration(high)) will tell")
            return Entry(operation: name, ttl: nil, evidence: evidence)
        }
        return Entry(operation: name, ttl: duration(suggested), evidence: evidence)
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
    static func yamlName(_ name: String) -> String {
        name.isIdentifierName ? name : yamlQuoted(name)
    }
}

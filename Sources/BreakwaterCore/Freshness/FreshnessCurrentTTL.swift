// The current TTL a freshness row shows (docs/FRESHNESS.md, `current_ttl_s`): the TTL the running
// configuration gives the operation's answers, read at every `/stats`, so that a reload that
// changes it shows at once on the dashboard and in `advise`, and the stale-hit estimate is for it.

/// The TTL of an operation's freshness row under the running configuration.
package enum FreshnessCurrentTTL {
    /// The TTL `policy` gives `operation`'s latest sampled answer, in seconds: exactly, from what
    /// its TTL was decided from (`latestBasis`); without that, the rule's TTL (or `default_ttl`
    /// when the origin's lifetime is not honoured), else `sampledTTLSeconds`, the TTL the latest
    /// sampled entry was stored with. The `other` row, which mixes operations, keeps the sampled one.
    package static func seconds(
        operation: String, latestBasis: TTLBasis?, sampledTTLSeconds: Double?, policy: CachePolicy
    ) -> Double? {
        guard operation != FreshnessLedger.other, sampledTTLSeconds != nil || latestBasis != nil,
            let ttl = policy.ttl(operationName: operation, basis: latestBasis, tags: [])
        else { return sampledTTLSeconds }
        return StatsReport.seconds(ttl)
    }
}

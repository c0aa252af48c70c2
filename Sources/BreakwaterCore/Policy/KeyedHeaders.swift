// The forwarded request headers an origin's answer may depend on (README "The origin side" and "The response cache"):
// their values are part of the cache key, so an answer fetched for one value (Accept-Language:
// fr) is never served for another, nor a coalesced fetch shared across values.

/// Which forwarded headers key the cache, and how an origin's `Vary` is judged against them.
package struct KeyedHeaders: Sendable {
    /// Forwarded headers that identify a request or a trace, never its answer: not keyed.
    package static let identityHeaders: Set<String> = [
        "x-request-id", "traceparent", "tracestate", "baggage", "apollographql-client-name",
        "apollographql-client-version",
    ]

    /// Lower-cased names, in configured order.
    package let names: [String]
    /// The `Vary` value of cacheable answers: `Accept` (the content type follows it) and every
    /// keyed header, so a CDN in front keeps the forms apart. Made once, not per answer.
    package let responseVary: String
    private let privateNames: Set<String>
    private let identityNames: Set<String>

    package init(forwardHeaders: [String], privateHeaders: [String]) {
        let privateNames = Set(privateHeaders.map { $0.lowercased() })
        var seen = Set<String>()
        names = forwardHeaders.map { $0.lowercased() }.filter {
            !privateNames.contains($0) && !Self.identityHeaders.contains($0) && !HopByHopFields.names.contains($0)
                && seen.insert($0).inserted
        }
        self.privateNames = privateNames
        identityNames = Self.identityHeaders
        responseVary = (["Accept"] + names.map(Self.canonicalName)).joined(separator: ", ")
    }

    /// An unambiguous encoding of the keyed headers' values in `headers`, or nil when the
    /// request carries none of them (the common case, which keeps the plain shared key).
    package func material(_ headers: HTTPHeaders) -> [UInt8]? {
        var material: [UInt8] = []
        for (index, name) in names.enumerated() where headers.contains(name) {
            material.append(UInt8(truncatingIfNeeded: index))
            material.appendValues(headers.values(of: name))
        }
        return material.isEmpty ? nil : material
    }

    /// Whether an answer whose `Vary` lists `varyValues` may be stored under a key holding the
    /// keyed headers: not for `*`, a private header, or a forwarded header that is not keyed.
    /// Headers the origin never received cannot have shaped its answer.
    package func allowsStoring(vary varyValues: [String]) -> Bool {
        for value in varyValues {
            for part in value.split(separator: ",") {
                let name = part.trimmingWhitespace().lowercased()
                if name.isEmpty { continue }
                if name == "*" || privateNames.contains(name) || identityNames.contains(name) { return false }
            }
        }
        return true
    }

    private static func canonicalName(_ lowercased: String) -> String {
        lowercased.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined(separator: "-")
    }
}

// The cache's rules of admission (README "Configuration" and "The response cache"): which rule an operation falls under
// and whose entry a request may use. Whether an origin answer may be stored is in
// CachePolicy+Storage.swift. Pure functions of the settings and the message: no clock, no I/O.

/// Decisions taken from `cache` settings about one operation, request or response.
package struct CachePolicy: Sendable {
    package let settings: Configuration.Cache
    /// The forwarded headers whose values key the cache.
    package let keyedHeaders: KeyedHeaders
    /// `cache.tag_header`, when set.
    package let tagHeader: TagHeader?
    /// Some type of `cache.types` is per-user: operations may learn that scope from their answers.
    package let hasPerUserTypes: Bool

    package init(_ settings: Configuration.Cache, forwardHeaders: [String] = []) {
        self.settings = settings
        keyedHeaders = KeyedHeaders(forwardHeaders: forwardHeaders, privateHeaders: settings.privateHeaders)
        tagHeader = TagHeader(configured: settings.tagHeader)
        hasPerUserTypes = settings.types.values.contains { $0.scope == .perUser }
    }

    /// The first rule whose `operation` equals `operationName` exactly; nil for anonymous operations.
    package func rule(for operationName: String?) -> Configuration.CacheRule? {
        guard let operationName else { return nil }
        return settings.rules.first { $0.operation == operationName }
    }

    /// Whether `rule(for:)` is a per-user rule, the rules read in place (a copy of the rule found
    /// retained and released its strings on every request).
    private func hasPerUserRule(_ operationName: String?) -> Bool {
        guard let operationName else { return false }
        return settings.rules.withUnsafeBufferPointer { rules in
            for index in rules.indices where rules[index].operation == operationName {
                return rules[index].scope == .perUser
            }
            return false
        }
    }

    /// Whether the request may use the shared cache, a per-user entry, or no cache at all.
    ///
    /// Under a per-user rule every request gets a per-user entry, credentials or not: anonymous
    /// requests then share one anonymous entry, which never mixes with a signed-in user's.
    /// `answersPerUserType` (the operation's answers held a per-user type of `cache.types`, and no
    /// rule makes it per-user) bypasses the cache: such a request carries no credentials to key a
    /// user's entry by (with them it bypasses anyway), and an entry for "no credentials" would be
    /// one entry shared by every anonymous client, whom the origin may tell apart by other means.
    package func scope(
        operationName: String?, kind: OperationKind, requestHeaders: HTTPHeaders, answersPerUserType: Bool = false
    ) -> CacheScopeDecision {
        guard kind == .query else { return .bypass(.notAQuery) }
        if hasPerUserRule(operationName) {
            return .perUser(material: userMaterial(requestHeaders))
        }
        if settings.privateHeaders.contains(where: { requestHeaders.contains($0) }) {
            return .bypass(.privateRequest)
        }
        return answersPerUserType ? .bypass(.perUserType) : .shared
    }

    /// Every private header, in configured order: its lower-cased name, then its values
    /// (`Array.appendValues`: a count, then each length-prefixed).
    private func userMaterial(_ headers: HTTPHeaders) -> [UInt8] {
        var material: [UInt8] = []
        for name in settings.privateHeaders {
            material.appendField(name.lowercased().utf8)
            material.appendValues(headers.values(of: name))
        }
        return material
    }
}

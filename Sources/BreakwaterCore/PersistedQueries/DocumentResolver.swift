// The APQ table of SPEC section 3: which document a request names, or the exact answer that
// Apollo Server (automatic mode) or Apollo Router (safelist mode) gives instead.

/// A request's document: its text and the SHA-256 of that text.
package struct ResolvedDocument: Sendable, Equatable {
    package var digest: SHA256Digest
    package var text: String
    /// The client sent hash and query, they matched, and mode is automatic: register the
    /// document once its operation is known to be usable.
    package var shouldRegister: Bool
}

/// Resolves documents by hash, `documentId`, `doc_id` or text, per `persisted_queries.mode`.
package struct DocumentResolver: Sendable {
    package let mode: Configuration.PersistedQueryMode
    package let registry: PersistedQueryRegistry
    package let hasher: any SHA256Hashing

    package init(mode: Configuration.PersistedQueryMode, registry: PersistedQueryRegistry, hasher: any SHA256Hashing) {
        self.mode = mode
        self.registry = registry
        self.hasher = hasher
    }

    package func resolve(_ request: GraphQLRequest) throws(GraphQLErrorResponse) -> ResolvedDocument {
        if let persisted = request.persistedQuery, persisted != .null {
            return try resolvePersisted(persisted, query: request.query)
        }
        if let id = request.documentID ?? request.relayDocumentID {
            return try resolveIdentified(id, query: request.query)
        }
        guard let query = request.query else { throw .missingQuery }
        let digest = hasher.sha256(query)
        if mode == .safelist && !registry.isSafelisted(digest) { throw .queryNotInSafelist }
        return ResolvedDocument(digest: digest, text: query, shouldRegister: false)
    }

    /// `extensions.persistedQuery = {"version": 1, "sha256Hash": "<hex>"}`.
    private func resolvePersisted(_ persisted: JSONValue, query: String?) throws(GraphQLErrorResponse)
        -> ResolvedDocument
    {
        if mode == .off { throw .persistedQueryNotSupported }
        guard case .number(let version)? = persisted["version"], Double(version) == 1 else {
            throw .unsupportedVersion
        }
        let hashText = persisted["sha256Hash"]?.stringValue ?? ""
        let claimed = SHA256Digest(hex: hashText)
        if let query {
            let digest = hasher.sha256(query)
            guard digest == claimed else { throw .hashMismatch }
            if mode == .safelist && !registry.isSafelisted(digest) { throw .notInPersistedQueryList(hashText) }
            return ResolvedDocument(digest: digest, text: query, shouldRegister: mode == .automatic)
        }
        guard let claimed, let text = registry.document(for: claimed) else {
            throw mode == .safelist ? .notInPersistedQueryList(hashText) : .persistedQueryNotFound
        }
        if mode == .safelist && !registry.isSafelisted(claimed) { throw .notInPersistedQueryList(hashText) }
        return ResolvedDocument(digest: claimed, text: text, shouldRegister: false)
    }

    /// `documentId` ("sha256:<hex>") or Relay's `doc_id`, looked up in the same registry.
    private func resolveIdentified(_ id: String, query: String?) throws(GraphQLErrorResponse) -> ResolvedDocument {
        if mode == .off { throw .persistedQueryNotSupported }
        let claimed = id.hasPrefix("sha256:") ? SHA256Digest(hex: id.dropFirst(7)) : nil
        if let query, id.hasPrefix("sha256:") {
            let digest = hasher.sha256(query)
            guard digest == claimed else { throw .hashMismatch }
            if mode == .safelist && !registry.isSafelisted(digest) { throw .notInPersistedQueryList(id) }
            return ResolvedDocument(digest: digest, text: query, shouldRegister: mode == .automatic)
        }
        guard let text = registry.document(forID: id) else {
            throw mode == .safelist ? .notInPersistedQueryList(id) : .persistedQueryNotFound
        }
        let digest = claimed ?? hasher.sha256(text)
        if mode == .safelist && !registry.isSafelisted(digest) { throw .notInPersistedQueryList(id) }
        return ResolvedDocument(digest: digest, text: text, shouldRegister: false)
    }
}

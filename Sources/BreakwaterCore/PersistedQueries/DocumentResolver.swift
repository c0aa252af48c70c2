// The APQ table of README "GraphQL over HTTP rules": which document a request names, or the exact answer that
// Apollo Server (automatic mode) or Apollo Router (safelist mode) gives instead.

/// A request's document: its text and the SHA-256 of that text.
package struct ResolvedDocument: Sendable, Equatable {
    package var digest: SHA256Digest
    package var text: String
    /// The client sent hash and query, they matched, and mode is automatic: register the
    /// document once its operation is known to be usable.
    package var shouldRegister: Bool
}

/// What resolving a request's document found.
package enum DocumentResolution: Sendable, Equatable {
    case document(ResolvedDocument)
    /// A hash this registry does not know (mode automatic): a fleet tier may know it, else the
    /// answer is PersistedQueryNotFound.
    case unknownHash(SHA256Digest)
}

/// Resolves documents by hash, `documentId`, `doc_id` or text, per `persisted_queries.mode`.
package struct DocumentResolver: Sendable {
    package let mode: Configuration.PersistedQueryMode
    package let registry: any DocumentRegistry
    package let hasher: any SHA256Hashing
    /// Digests of full documents already seen, by their exact text.
    package let digests: DocumentDigests

    package init(
        mode: Configuration.PersistedQueryMode, registry: any DocumentRegistry, hasher: any SHA256Hashing,
        digests: DocumentDigests = DocumentDigests()
    ) {
        self.mode = mode
        self.registry = registry
        self.hasher = hasher
        self.digests = digests
    }

    package func resolve(_ request: GraphQLRequest) throws(GraphQLErrorResponse) -> DocumentResolution {
        if let persisted = request.persistedQuery, persisted != .null {
            return try resolvePersisted(persisted, query: request.query)
        }
        if let id = request.documentID ?? request.relayDocumentID {
            return try resolveIdentified(id, query: request.query)
        }
        guard let query = request.query else { throw .missingQuery }
        let digest = digests.digest(of: query, hasher: hasher)
        if mode == .safelist && !registry.isSafelisted(digest) { throw .queryNotInSafelist }
        return .document(ResolvedDocument(digest: digest, text: query, shouldRegister: false))
    }

    /// The document a fleet tier returned for `digest`, if its text really hashes to it.
    package func verified(_ text: String, for digest: SHA256Digest) -> ResolvedDocument? {
        hasher.sha256(text) == digest ? ResolvedDocument(digest: digest, text: text, shouldRegister: false) : nil
    }

    /// `extensions.persistedQuery = {"version": 1, "sha256Hash": "<hex>"}`.
    private func resolvePersisted(_ persisted: JSONValue, query: String?) throws(GraphQLErrorResponse)
        -> DocumentResolution
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
            return .document(ResolvedDocument(digest: digest, text: query, shouldRegister: mode == .automatic))
        }
        guard let claimed else {
            throw mode == .safelist ? .notInPersistedQueryList(hashText) : .persistedQueryNotFound
        }
        guard let text = registry.document(for: claimed) else {
            if mode == .safelist { throw .notInPersistedQueryList(hashText) }
            return .unknownHash(claimed)
        }
        if mode == .safelist && !registry.isSafelisted(claimed) { throw .notInPersistedQueryList(hashText) }
        return .document(ResolvedDocument(digest: claimed, text: text, shouldRegister: false))
    }

    /// `documentId` ("sha256:<hex>") or Relay's `doc_id`, looked up in the same registry.
    private func resolveIdentified(_ id: String, query: String?) throws(GraphQLErrorResponse) -> DocumentResolution {
        if mode == .off { throw .persistedQueryNotSupported }
        let claimed = id.hasPrefix("sha256:") ? SHA256Digest(hex: id.dropFirst(7)) : nil
        if let query, id.hasPrefix("sha256:") {
            let digest = hasher.sha256(query)
            guard digest == claimed else { throw .hashMismatch }
            if mode == .safelist && !registry.isSafelisted(digest) { throw .notInPersistedQueryList(id) }
            return .document(ResolvedDocument(digest: digest, text: query, shouldRegister: mode == .automatic))
        }
        guard let text = registry.document(forID: id) else {
            if mode == .safelist { throw .notInPersistedQueryList(id) }
            if let claimed { return .unknownHash(claimed) }
            throw .persistedQueryNotFound
        }
        let digest = claimed ?? hasher.sha256(text)
        if mode == .safelist && !registry.isSafelisted(digest) { throw .notInPersistedQueryList(id) }
        return .document(ResolvedDocument(digest: digest, text: text, shouldRegister: false))
    }
}

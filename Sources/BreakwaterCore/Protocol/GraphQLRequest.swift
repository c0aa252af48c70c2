// One GraphQL request as the client sent it, GET or POST, before its document is resolved.

/// The parameters of a GraphQL-over-HTTP request (README "GraphQL over HTTP rules").
package struct GraphQLRequest: Sendable, Equatable {
    package enum Method: Sendable, Equatable { case get, post }

    package var method: Method
    /// The document text, when sent.
    package var query: String?
    package var operationName: String?
    /// A JSON object, or nil when absent or null.
    package var variables: JSONValue?
    /// A JSON object, or nil when absent or null.
    package var extensions: JSONValue?
    /// The GraphQL-over-HTTP draft's `documentId` ("sha256:<hex>").
    package var documentID: String?
    /// Relay's `doc_id`.
    package var relayDocumentID: String?
    /// A POST body holding only a non-empty `query`, an `operationName` (a non-empty string or
    /// null) and `variables`: the origin may get the client's bytes as they came, since writing
    /// them again would say the same (the parser refuses duplicate keys).
    package var isPlainPOST: Bool

    package init(
        method: Method, query: String? = nil, operationName: String? = nil, variables: JSONValue? = nil,
        extensions: JSONValue? = nil, documentID: String? = nil, relayDocumentID: String? = nil,
        isPlainPOST: Bool = false
    ) {
        self.method = method
        self.query = query
        self.operationName = operationName
        self.variables = variables
        self.extensions = extensions
        self.documentID = documentID
        self.relayDocumentID = relayDocumentID
        self.isPlainPOST = isPlainPOST
    }

    /// `extensions.persistedQuery`, when present.
    package var persistedQuery: JSONValue? { extensions?["persistedQuery"] }
}

// Reads a GraphQL request from a GET query string or a POST JSON body, with Apollo Server's
// messages for every malformed input (README "GraphQL over HTTP rules"), and refuses a query text longer than
// `persisted_queries.max_document_bytes` before anything parses it.

/// Parses HTTP requests into `GraphQLRequest`s.
package enum GraphQLRequestParser {
    /// The default bound on a query text's UTF-8 size, `persisted_queries.max_document_bytes`.
    package static let defaultMaxDocumentBytes = 100 * 1024

    /// The GraphQL request in `request`, or the 400 that explains why there is none, or 413 when
    /// its query text is longer than `maxDocumentBytes`. The method and Content-Type have been
    /// checked by the caller.
    package static func parse(
        _ request: HTTPRequest, maxDocumentBytes: Int = defaultMaxDocumentBytes
    ) throws(GraphQLErrorResponse) -> GraphQLRequest {
        request.method == "GET"
            ? try parseGET(query: request.query, maxDocumentBytes: maxDocumentBytes)
            : try parsePOST(body: request.body, maxDocumentBytes: maxDocumentBytes)
    }

    /// 413 with a GraphQL error body: a document this long would hold the event loop for too long.
    package static func documentTooLarge(_ maxDocumentBytes: Int) -> GraphQLErrorResponse {
        GraphQLErrorResponse(
            status: 413,
            message: "The query document is longer than the limit of \(maxDocumentBytes) bytes.",
            code: "DOCUMENT_TOO_LARGE")
    }

    private static func bounded(_ query: String?, _ maxDocumentBytes: Int) throws(GraphQLErrorResponse) -> String? {
        guard let query, query.utf8.count > maxDocumentBytes else { return query }
        throw documentTooLarge(maxDocumentBytes)
    }

    // MARK: - GET

    static func parseGET(
        query: Substring?, maxDocumentBytes: Int = defaultMaxDocumentBytes
    ) throws(GraphQLErrorResponse) -> GraphQLRequest {
        let parameters = QueryString(query)
        return GraphQLRequest(
            method: .get,
            query: try bounded(single("query", in: parameters), maxDocumentBytes),
            operationName: try single("operationName", in: parameters),
            variables: try jsonObject("variables", in: parameters),
            extensions: try jsonObject("extensions", in: parameters),
            documentID: try single("documentId", in: parameters),
            relayDocumentID: try single("doc_id", in: parameters))
    }

    /// The one value of `name`; an empty value counts as absent, a repeated one is an error.
    private static func single(_ name: String, in parameters: QueryString) throws(GraphQLErrorResponse) -> String? {
        let values = parameters.values(of: name).filter { !$0.isEmpty }
        guard values.count <= 1, parameters.values(of: name).count <= 1 else {
            throw .badRequest("The '\(name)' search parameter may only be specified once.")
        }
        return values.first
    }

    private static func jsonObject(_ name: String, in parameters: QueryString) throws(GraphQLErrorResponse)
        -> JSONValue?
    {
        guard let text = try single(name, in: parameters) else { return nil }
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            throw .badRequest("The \(name) search parameter contains invalid JSON: \(error.message).")
        }
        guard value.isObject else {
            throw .badRequest("The \(name) search parameter should contain a JSON-encoded object.")
        }
        return value
    }

    // MARK: - POST

    static func parsePOST(
        body: [UInt8], maxDocumentBytes: Int = defaultMaxDocumentBytes
    ) throws(GraphQLErrorResponse) -> GraphQLRequest {
        // The common body (query, operationName, variables) without the body's object built:
        // the same members `parseAnyPOST` reads from it, fewer allocations and key strings.
        // Made in one piece: a request set plain after it was made was copied and destroyed once more.
        if case let (query, operationName, variables)? = JSONParser.plainGraphQLPOST(body) {
            guard query.utf8.count <= maxDocumentBytes else { throw documentTooLarge(maxDocumentBytes) }
            return GraphQLRequest(
                method: .post, query: query, operationName: operationName, variables: variables, isPlainPOST: true)
        }
        return try parseAnyPOST(body: body, maxDocumentBytes: maxDocumentBytes)
    }

    /// Any POST body: parsed whole, its members read one by one (Apollo Server's messages).
    static func parseAnyPOST(
        body: [UInt8], maxDocumentBytes: Int = defaultMaxDocumentBytes
    ) throws(GraphQLErrorResponse) -> GraphQLRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw .badRequest("The request body is not valid JSON: \(error.message) (at byte \(error.offset)).")
        }
        guard case .object(let members) = value, !members.isEmpty else {
            throw .badRequest("POST body missing, invalid Content-Type, or JSON object has no keys.")
        }
        var request = GraphQLRequest(method: .post)
        var isPlain = true
        for (key, member) in members {
            switch key {
            case "query":
                if case .string(let text) = member, !text.isEmpty {} else { isPlain = false }
                switch member {
                case .string(let text): request.query = try bounded(text.isEmpty ? nil : text, maxDocumentBytes)
                case .null: break
                default: throw .badRequest("GraphQL queries must be strings.")
                }
            case "operationName":
                if case .string(let name) = member, name.isEmpty { isPlain = false }
                request.operationName = try optionalString(member, "`operationName` in a POST body must be a string if provided.")
            case "variables":
                request.variables = try optionalObject(member, field: "variables")
            case "extensions":
                isPlain = false
                request.extensions = try optionalObject(member, field: "extensions")
            case "documentId":
                isPlain = false
                request.documentID = try optionalString(member, "`documentId` in a POST body must be a string if provided.")
            case "doc_id":
                isPlain = false
                request.relayDocumentID = try optionalString(member, "`doc_id` in a POST body must be a string if provided.")
            default:
                isPlain = false
                continue  // Unknown members are ignored, as by Apollo Server.
            }
        }
        request.isPlainPOST = isPlain && request.query != nil
        return request
    }

    private static func optionalString(_ value: JSONValue, _ message: String) throws(GraphQLErrorResponse) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .null: return nil
        default: throw .badRequest(message)
        }
    }

    private static func optionalObject(_ value: JSONValue, field: String) throws(GraphQLErrorResponse) -> JSONValue? {
        switch value {
        case .object: return value
        case .null: return nil
        case .string:
            throw .badRequest(
                "`\(field)` in a POST body should be provided as an object, not a recursively JSON-encoded string.")
        default:
            throw .badRequest("`\(field)` in a POST body must be an object if provided.")
        }
    }
}

// Executing one GraphQL request and shaping the HTTP answer as Apollo Server does.

import BreakwaterCore
import GraphQL

extension DemoOrigin {
    /// Parses, validates and executes; request errors are 400, everything that executed is 200.
    func answer(_ request: HTTPRequest, parsed: Result<GraphQLParameters, DemoRequestError>) async
        -> HTTPResponse
    {
        let parameters: GraphQLParameters
        switch parsed {
        case .success(let parsed): parameters = parsed
        case .failure(let error): return Self.errorResponse(status: 400, message: error.message, code: "BAD_REQUEST")
        }
        let document: Document
        do {
            // What would stop the process inside the library's parser is refused first.
            try GraphQLSourceCheck.check(parameters.query)
        } catch {
            let locations = error.locations.map { GraphQL.SourceLocation(line: $0.line, column: $0.column) }
            return Self.errorsResponse(
                status: 400, [GraphQLError(message: error.message, locations: locations)], code: "GRAPHQL_PARSE_FAILED")
        }
        do {
            document = try parse(source: Source(body: parameters.query, name: "GraphQL request"))
        } catch {
            return Self.errorsResponse(status: 400, [Self.graphQLError(error)], code: "GRAPHQL_PARSE_FAILED")
        }
        let validationErrors = validate(schema: schema.schema, ast: document)
        guard validationErrors.isEmpty else {
            return Self.errorsResponse(status: 400, validationErrors, code: "GRAPHQL_VALIDATION_FAILED")
        }
        if request.method == "GET",
            Self.operation(in: document, named: parameters.operationName)?.operation == .mutation
        {
            var response = Self.errorResponse(
                status: 405, message: "Can only perform a mutation operation from a POST request.",
                code: "BAD_REQUEST"
            )
            response.headers.add("Allow", "POST")
            return response
        }
        let context = LaunchesContext(
            user: LaunchesContext.user(authorization: request.headers["Authorization"]),
            catalog: catalog, ledger: ledger
        )
        let result: GraphQLResult
        do {
            result = try await execute(
                schema: schema.schema, documentAST: document, rootValue: resolver, context: context,
                variableValues: parameters.variables, operationName: parameters.operationName
            )
        } catch {
            return Self.errorsResponse(status: 500, [Self.graphQLError(error)], code: "INTERNAL_SERVER_ERROR")
        }
        // No data at all means execution never started: an unknown operation or bad variables.
        guard let data = result.data else {
            return Self.errorsResponse(status: 400, result.errors, code: "BAD_USER_INPUT")
        }
        var body: [(String, Map)] = [("data", data)]
        if !result.errors.isEmpty {
            body.append(("errors", .array(Self.sorted(result.errors).map { Self.map($0, code: nil) })))
        }
        return Self.jsonResponse(status: 200, .dictionary(.init(uniqueKeysWithValues: body)))
    }

    /// The operation `name` selects, or the only one when no name is given.
    static func operation(in document: Document, named name: String?) -> OperationDefinition? {
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        guard let name else { return operations.count == 1 ? operations[0] : nil }
        return operations.first { $0.name?.value == name }
    }

    /// The name of a document's only operation, for the counters of requests without `operationName`.
    static func soleOperationName(in query: String) -> String? {
        guard (try? GraphQLSourceCheck.check(query)) != nil,
            let document = try? parse(source: query, noLocation: true)
        else { return nil }
        return operation(in: document, named: nil)?.name?.value
    }

    /// Sibling fields resolve concurrently, so their errors arrive in any order; sort them.
    private static func sorted(_ errors: [GraphQLError]) -> [GraphQLError] {
        errors.sorted { lhs, rhs in
            let left = lhs.locations.map { [$0.line, $0.column] }, right = rhs.locations.map { [$0.line, $0.column] }
            if left != right { return left.lexicographicallyPrecedes(right) { $0.lexicographicallyPrecedes($1) } }
            let leftPath = lhs.path.elements.map(\.description), rightPath = rhs.path.elements.map(\.description)
            if leftPath != rightPath { return leftPath.lexicographicallyPrecedes(rightPath) }
            return lhs.message < rhs.message
        }
    }

    private static func graphQLError(_ error: any Error) -> GraphQLError {
        error as? GraphQLError ?? GraphQLError(message: String(describing: error))
    }
}

// MARK: - Response bodies

extension DemoOrigin {
    static func jsonResponse(status: Int, _ body: Map) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body.jsonBytes)
    }

    /// `{"errors":[{"message":..., "extensions":{"code":...}}]}`, the shape of every error body.
    static func errorResponse(status: Int, message: String, code: String) -> HTTPResponse {
        errorsResponse(status: status, [GraphQLError(message: message)], code: code)
    }

    static func errorsResponse(status: Int, _ errors: [GraphQLError], code: String) -> HTTPResponse {
        jsonResponse(status: status, ["errors": .array(errors.map { map($0, code: code) })])
    }

    /// An error as JSON: `path` and `locations` only when known, as graphql-js writes them.
    static func map(_ error: GraphQLError, code: String?) -> Map {
        var object: [(String, Map)] = [("message", .string(error.message))]
        if !error.locations.isEmpty {
            let locations: [Map] = error.locations.map { ["line": .int($0.line), "column": .int($0.column)] }
            object.append(("locations", .array(locations)))
        }
        if !error.path.elements.isEmpty {
            let path: [Map] =
                error.path.elements.map { element in
                    switch element {
                    case .index(let index): .int(index)
                    case .key(let key): .string(key)
                    }
                }
            object.append(("path", .array(path)))
        }
        var extensions = error.extensions.sorted { $0.key < $1.key }
        if let code, error.extensions["code"] == nil { extensions.append(("code", .string(code))) }
        if !extensions.isEmpty { object.append(("extensions", .dictionary(.init(uniqueKeysWithValues: extensions)))) }
        return .dictionary(.init(uniqueKeysWithValues: object))
    }

    /// What a forced status answers: a web server's error page, or a GraphQL error object.
    static func forcedResponse(status: Int, body: DemoFaults.StatusBody) -> HTTPResponse {
        switch body {
        case .json:
            return jsonResponse(status: status, ["errors": [["message": "forced"]]])
        case .html:
            let title = "\(status) \(reasonPhrase(status))"
            let page = """
                <!DOCTYPE html>
                <html><head><title>\(title)</title></head>
                <body><h1>\(title)</h1><p>The Breakwater demo origin was told to fail.</p></body></html>

                """
            return HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
        }
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Error"
        }
    }
}

// The request sent to the origin for a resolved operation (README "The origin side"): always the full
// document, never the persistedQuery extension, so that the origin need not know APQ.

/// Method, target and body of one origin request.
package struct OriginRequest: Sendable, Equatable {
    package var method: String
    package var target: String
    package var body: [UInt8]

    /// A POST of `{"query","operationName","variables"}` to `path`; or, with `preferGET` and a
    /// query operation, a GET while the target fits `maxGetTargetBytes` (long GETs become POSTs).
    /// `clientBody`: the client's own POST body saying exactly that (`GraphQLRequest.isPlainPOST`,
    /// the document not rewritten), sent as it came instead of written again.
    package static func make(
        document: String, operationName: String?, variables: JSONValue?, path: String, preferGET: Bool,
        isQuery: Bool, maxGetTargetBytes: Int, clientBody: [UInt8]? = nil
    ) -> OriginRequest {
        if preferGET && isQuery {
            var target = path + (path.contains("?") ? "&" : "?") + "query=" + QueryString.encode(document)
            if let operationName { target += "&operationName=" + QueryString.encode(operationName) }
            if let variables {
                target += "&variables=" + QueryString.encode(String(decoding: JSONWriter.encode(variables), as: UTF8.self))
            }
            if target.utf8.count <= maxGetTargetBytes {
                return OriginRequest(method: "GET", target: target, body: [])
            }
        }
        if let clientBody { return OriginRequest(method: "POST", target: path, body: clientBody) }
        var body: [UInt8] = []
        body.reserveCapacity(document.utf8.count + 64)
        body += Array(#"{"query":"#.utf8)
        JSONWriter.quotedString(document, into: &body)
        if let operationName {
            body += Array(#","operationName":"#.utf8)
            JSONWriter.quotedString(operationName, into: &body)
        }
        if let variables {
            body += Array(#","variables":"#.utf8)
            JSONWriter.write(variables, into: &body)
        }
        body.append(UInt8(ascii: "}"))
        return OriginRequest(method: "POST", target: path, body: body)
    }
}

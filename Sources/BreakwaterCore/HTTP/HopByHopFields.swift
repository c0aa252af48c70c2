// The fields that describe one connection, never the request (RFC 9110 section 7.6.1): a proxy
// forwards none of them. They leave the request the moment it arrives, before anything reads it,
// so the cache key, the request id, the private-header check and the upstream request all see
// the same end-to-end fields (docs/SECURITY.md "What is shared").

/// The hop-by-hop fields of HTTP/1.1.
package enum HopByHopFields {
    /// Hop-by-hop whatever `Connection` says, lower-cased.
    package static let names: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade",
    ]

    private static let nameList = Array(names)

    /// Whether `name` is hop-by-hop whatever `Connection` says.
    package static func contains(_ name: String) -> Bool {
        nameList.contains { $0.equalsIgnoringASCIICase(name) }
    }

    /// The field names `headers`' `Connection` fields list, beyond `close` and `keep-alive`
    /// (the options every client sends); empty for nearly every request.
    package static func connectionScopedNames(in headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for value in headers.values(of: "Connection") {
            for part in value.split(separator: ",") {
                let name = part.trimmingWhitespace()
                if name.isEmpty || name.equalsIgnoringASCIICase("close") || name.equalsIgnoringASCIICase("keep-alive")
                    || name.equalsIgnoringASCIICase("Connection")
                {
                    continue
                }
                names.append(name)
            }
        }
        return names
    }
}

extension HTTPRequest {
    /// Removes every field the client's `Connection` header names: such a field is meant for this
    /// hop alone, so it must neither reach the origin nor shape the key, scope or request id.
    /// Costs one lookup when there is nothing to remove.
    package mutating func removeConnectionScopedFields() {
        let names = HopByHopFields.connectionScopedNames(in: headers)
        guard !names.isEmpty else { return }
        headers.fields.removeAll { field in names.contains { field.name.equalsIgnoringASCIICase($0) } }
    }
}

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
    /// (the options every client sends); empty for nearly every request, and then without
    /// allocating: a field whose whole value is one of those options is not split.
    package static func connectionScopedNames(in headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for field in headers.fields where field.name.utf8.count == 10 && field.name.equalsIgnoringASCIICase("Connection") {
            if isOnlyAnOption(field.value) { continue }
            for part in field.value.split(separator: ",") {
                let name = part.trimmingWhitespace()
                if name.isEmpty || isOnlyAnOption(name) || name.equalsIgnoringASCIICase("Connection") { continue }
                names.append(name)
            }
        }
        return names
    }

    /// `close` or `keep-alive`, in any case.
    private static func isOnlyAnOption(_ value: String) -> Bool {
        value.equalsIgnoringASCIICase("close") || value.equalsIgnoringASCIICase("keep-alive")
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

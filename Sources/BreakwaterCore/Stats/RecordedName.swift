// Which client-chosen names a request may leave in /stats, /metrics, the dashboard and the logs,
// and how long. A client sends any `operationName` and `apollographql-client-name`/`-version`
// it likes: uncut, 600 refused requests with 60 KB names made /stats 28.5 MiB.

/// The recording rule for operation and client names.
package enum RecordedName {
    /// Longest operation name, client name or client version recorded or logged, in UTF-8 bytes.
    package static let maxBytes = 128

    /// The operation a request counts under in /stats, /metrics and the dashboard: the name of
    /// the operation the document defines and the request ran, cut; nil (the anonymous row)
    /// when none was resolved. A name the client asked for that no document defines (a 400
    /// OPERATION_RESOLUTION_FAILURE, an unknown persisted query) is never recorded.
    package static func operation(resolved: String?) -> String? {
        resolved.map(cut)
    }

    /// The operation the access log names: the resolved one, else the one the client asked for
    /// (on PersistedQueryNotFound it tells operators which operation lacks its document), cut.
    package static func loggedOperation(resolved: String?, requested: String?) -> String? {
        (resolved ?? requested).map(cut)
    }

    /// `name` cut to `maxBytes` before a character's first byte; itself (no copy) when it fits.
    package static func cut(_ name: String) -> String {
        let utf8 = name.utf8
        guard utf8.count > maxBytes else { return name }
        var end = utf8.index(utf8.startIndex, offsetBy: maxBytes)
        // Step back over continuation bytes (10xxxxxx) so the cut falls between characters.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}

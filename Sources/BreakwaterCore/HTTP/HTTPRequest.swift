// A client request as the HTTP engine parsed it: what every handler (proxy, admin, demo) receives.

/// One HTTP request received by a listener.
///
/// A value with copy-on-write storage: the request passes through several handlers (identity,
/// batches, proxy, flow), and each copy of six separately counted fields cost six retains and
/// six releases; now a copy is one retain, and a change copies the fields only when shared.
package struct HTTPRequest: Sendable {
    private final class Storage: CopyOnWriteStorage, @unchecked Sendable {
        var method: HTTPMethod
        var target: String
        var headers: HTTPHeaders
        var body: [UInt8]
        var remoteAddress: String
        var isSecure: Bool
        var version: HTTPVersion
        var identity: RequestIdentity?

        init(
            method: HTTPMethod, target: String, headers: HTTPHeaders, body: [UInt8], remoteAddress: String,
            isSecure: Bool, version: HTTPVersion, identity: RequestIdentity?
        ) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.remoteAddress = remoteAddress
            self.isSecure = isSecure
            self.version = version
            self.identity = identity
        }

        func copy() -> Storage {
            Storage(
                method: method, target: target, headers: headers, body: body, remoteAddress: remoteAddress,
                isSecure: isSecure, version: version, identity: identity)
        }
    }

    // Mutated only through `unique()`: a shared storage is never written.
    private var storage: Storage

    package init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "", isSecure: Bool = false, version: HTTPVersion = .http1
    ) {
        storage = Storage(
            method: method, target: target, headers: headers, body: body, remoteAddress: remoteAddress,
            isSecure: isSecure, version: version, identity: nil)
    }

    private mutating func unique() -> Storage { Storage.unique(&storage) }

    package var method: HTTPMethod {
        get { storage.method }
        set { unique().method = newValue }
    }

    /// The request-target exactly as sent: path and query string.
    package var target: String {
        get { storage.target }
        set { unique().target = newValue }
    }

    package var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &unique().headers }
    }

    package var body: [UInt8] {
        get { storage.body }
        // In place: the engine appends a body chunk by chunk.
        _modify { yield &unique().body }
    }

    /// The peer's address, for `X-Forwarded-For`.
    package var remoteAddress: String {
        get { storage.remoteAddress }
        set { unique().remoteAddress = newValue }
    }

    /// Whether the request arrived over TLS, for `X-Forwarded-Proto`.
    package var isSecure: Bool {
        get { storage.isSecure }
        set { unique().isSecure = newValue }
    }

    /// The protocol the request arrived over.
    package var version: HTTPVersion { storage.version }

    /// Who sent the request and under which id, as the identity layer found it (README "GraphQL
    /// over HTTP rules"); nil before that layer. Carried with the request to whatever answers it.
    package var identity: RequestIdentity? {
        get { storage.identity }
        set { unique().identity = newValue }
    }

    /// The id the identity layer gave the request: forwarded to the origin as `X-Request-Id` in
    /// place of the client's field (without rewriting `headers`), and stamped on the answer.
    package var requestID: String? { storage.identity?.requestID }

    /// The target's path, without the query string.
    package var path: Substring {
        let target = storage.target
        // Searched as bytes: a Character search walks grapheme clusters (a hit path cost).
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }

    /// The target's query string without "?", or nil when there is none.
    package var query: Substring? {
        let target = storage.target
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: q)...]
    }
}

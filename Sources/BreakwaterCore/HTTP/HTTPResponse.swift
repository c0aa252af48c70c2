// A response to send: status, headers and body bytes, or a prebuilt block (a cached answer).

/// One HTTP response.
///
/// A value with copy-on-write storage, like `HTTPRequest`: an answer passes through the
/// request's context, the identity layer, the connection's slot and the head writer, and each
/// copy of its separately counted fields cost a retain and a release apiece.
package struct HTTPResponse: Sendable {
    private final class Storage: CopyOnWriteStorage, @unchecked Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var prebuilt: PrebuiltResponse?
        var requestID: RequestID?
        var cacheLines: CacheAnswerLines?
        /// Holds the bytes of those `cacheLines` texts that belong to a cache entry's shape, for as
        /// long as the answer is held. Kept beside the lines, not in them: lines
        /// without a reference are copied as plain bytes.
        var linesOwner: AnyObject?

        init(
            status: Int, headers: HTTPHeaders, body: [UInt8], prebuilt: PrebuiltResponse?, requestID: RequestID?,
            cacheLines: CacheAnswerLines? = nil, linesOwner: AnyObject? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.prebuilt = prebuilt
            self.requestID = requestID
            self.cacheLines = cacheLines
            self.linesOwner = linesOwner
        }

        func copy() -> Storage {
            Storage(
                status: status, headers: headers, body: body, prebuilt: prebuilt, requestID: requestID,
                cacheLines: cacheLines, linesOwner: linesOwner)
        }

        /// Every header field as a list: `cacheLines` around the listed ones.
        var allHeaders: HTTPHeaders {
            guard let cacheLines else { return headers }
            return HTTPHeaders(cacheLines.leadingFields + headers.fields + cacheLines.trailingFields)
        }
    }

    // Mutated only through `unique()`: a shared storage is never written.
    private var storage: Storage

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        storage = Storage(status: status, headers: headers, body: body, prebuilt: nil, requestID: nil)
    }

    package init(status: Int, headers: HTTPHeaders = [:], body: String) {
        self.init(status: status, headers: headers, body: Array(body.utf8))
    }

    /// A response whose fixed lines and body are `prebuilt`, after `headers`.
    package init(status: Int, headers: HTTPHeaders, prebuilt: PrebuiltResponse) {
        storage = Storage(status: status, headers: headers, body: [], prebuilt: prebuilt, requestID: nil)
    }

    /// A 200 from the cache: `lines`, then `headers` (CORS), then `prebuilt`'s lines and body;
    /// `owner` holds the bytes of the lines' texts.
    package init(lines: CacheAnswerLines, owner: AnyObject?, headers: HTTPHeaders, prebuilt: PrebuiltResponse) {
        storage = Storage(
            status: 200, headers: headers, body: [], prebuilt: prebuilt, requestID: nil, cacheLines: lines,
            linesOwner: owner)
    }

    private mutating func unique() -> Storage { Storage.unique(&storage) }

    package var status: Int {
        get { storage.status }
        set { unique().status = newValue }
    }

    /// The headers written before `prebuilt`'s lines when there is one (the per-request ones),
    /// `cacheLines` among them. Changing them turns `cacheLines` into listed fields first.
    package var headers: HTTPHeaders {
        get { storage.allHeaders }
        _modify {
            let storage = unique()
            if storage.cacheLines != nil {
                storage.headers = storage.allHeaders
                storage.cacheLines = nil
                storage.linesOwner = nil
            }
            yield &storage.headers
        }
    }

    /// The lines of an answer from the cache, held as values (nil: every field is listed).
    package var cacheLines: CacheAnswerLines? { storage.cacheLines }

    /// The fields held as a list: all of them, or with `cacheLines`, those an engine writes
    /// between the lines' leading part (`Vary` last) and their `Content-Type`.
    package var listedHeaders: HTTPHeaders { storage.headers }

    package var body: [UInt8] {
        get { storage.body }
        _modify { yield &unique().body }
    }

    /// Header lines and body serialised once (a cache entry's): when set, `body` is empty and
    /// the engine writes the status line, `headers`, then these bytes.
    package var prebuilt: PrebuiltResponse? {
        get { storage.prebuilt }
        set { unique().prebuilt = newValue }
    }

    /// The request's id, written as `X-Request-Id` by the engine: set on the way out without
    /// copying `headers` (which the answer's maker still shares).
    package var requestID: String? {
        get { storage.requestID?.text }
        set { stampedID = newValue.map(RequestID.init) }
    }

    /// `requestID` as it was stamped, for the engine to write without spelling it into a String.
    package var stampedID: RequestID? {
        get { storage.requestID }
        // The same id again changes nothing: no copy of a shared storage for it.
        set { if storage.requestID != newValue { unique().requestID = newValue } }
    }

    /// Stamps `id` on an answer made for its request alone (`stampedID` compares it with the id
    /// already there first, which copied both).
    package mutating func stamp(_ id: RequestID) {
        unique().requestID = id
    }

    /// The stamped id's length in bytes, nil when there is none.
    package var stampedIDCount: Int? { storage.requestID?.utf8Count }

    /// Writes the stamped id's `stampedIDCount` bytes at `start`; returns how many. Read in place
    /// (a copy of the id retained and released it).
    package func writeStampedID(at start: UnsafeMutablePointer<UInt8>) -> Int {
        storage.requestID?.write(at: start) ?? 0
    }

    /// The body's length, prebuilt or not.
    package var bodyCount: Int { storage.prebuilt?.bodyCount ?? storage.body.count }

    /// The body's bytes, copied out of a prebuilt block if need be (batches, tests).
    package var completeBody: [UInt8] { storage.prebuilt?.body ?? storage.body }

    /// The first value of `name` among `headers`, the request id, then the prebuilt lines.
    package func headerValue(_ name: String) -> String? {
        if let value = storage.cacheLines?.value(of: name) { return value }
        if let value = storage.headers[name] { return value }
        if let requestID = storage.requestID, name.equalsIgnoringASCIICase("X-Request-Id") { return requestID.text }
        return storage.prebuilt?.value(of: name)
    }
}

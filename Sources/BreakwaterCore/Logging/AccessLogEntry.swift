// One access-log line (README "Watching it: the admin endpoints"): time, client address, method, status, X-Cache, operation
// name and hash, error code, duration, origin status and duration, response bytes, request id,
// user agent, Apollo client name and version; on a freshness sample's line, whether the answer
// changed and the stored answer's age. Never variables, never other header values.
// A value for tests and one-off lines: the proxy packs its records from the request's own values
// straight into the loop's buffer (AccessLogRecord), building no entry.

/// What the access log records about one answered request.
package struct AccessLogEntry: Sendable, CustomStringConvertible {
    package var time: LogTimestamp
    package var client: String
    package var method: HTTPMethod
    package var version: HTTPVersion = .http1
    package var status: Int
    /// `X-Cache`: HIT, STALE, MISS, BYPASS; nil for answers Breakwater gave itself.
    package var cache: XCache?
    package var operation: String?
    package var hash: SHA256Digest?
    /// The GraphQL error code Breakwater answered with, if any.
    package var errorCode: String?
    /// Why the answer was not stored, when it was a BYPASS.
    package var bypassReason: String?
    package var duration: Duration
    package var originStatus: Int?
    package var originDuration: Duration?
    package var bytes: Int
    package var requestID: String?
    package var userAgent: String?
    package var clientName: String?
    package var clientVersion: String?
    /// What a freshness sampling fetch found, on its `SAMPLE` line; nil on every other line.
    package var sample: AccessLogRecord.Sample?

    package init(
        time: LogTimestamp, client: String, method: HTTPMethod, status: Int, cache: XCache? = nil,
        operation: String? = nil, hash: SHA256Digest? = nil, errorCode: String? = nil, bypassReason: String? = nil,
        duration: Duration, originStatus: Int? = nil, originDuration: Duration? = nil, bytes: Int,
        requestID: String? = nil, userAgent: String? = nil, clientName: String? = nil, clientVersion: String? = nil
    ) {
        self.time = time
        self.client = client
        self.method = method
        self.status = status
        self.cache = cache
        self.operation = operation
        self.hash = hash
        self.errorCode = errorCode
        self.bypassReason = bypassReason
        self.duration = duration
        self.originStatus = originStatus
        self.originDuration = originDuration
        self.bytes = bytes
        self.requestID = requestID
        self.userAgent = userAgent
        self.clientName = clientName
        self.clientVersion = clientVersion
    }

    /// Longest user agent kept: a client cannot blow up a line (operation and client names and
    /// versions are cut to `RecordedName.maxBytes`).
    package static let maxTextBytes = AccessLogLine.maxTextBytes

    /// Appends the entry's record (what a loop hands the log writer) in `format` to `buffer`.
    package func appendRecord(to buffer: inout LogLineBuffer, format: Configuration.LogFormat) {
        AccessLogRecord.append(
            to: &buffer, format: format, time: time, client: client, method: method, version: version, status: status,
            cache: cache,
            operation: operation, hash: hash, errorCode: errorCode, bypassReason: bypassReason, duration: duration,
            originStatus: originStatus, originDuration: originDuration, bytes: bytes, requestID: requestID,
            userAgent: userAgent, clientName: clientName, clientVersion: clientVersion, sample: sample)
    }

    /// Appends the line, its newline included, to `buffer`: the entry packed as a record and
    /// spelled, the way every line goes.
    package func append(to buffer: inout LogLineBuffer, format: Configuration.LogFormat, memory: inout LogLineMemory) {
        var record = LogLineBuffer(capacity: 256)
        appendRecord(to: &record, format: format)
        record.withUnsafeBytes { AccessLogLine.append(records: $0, to: &buffer, memory: &memory) }
    }

    /// The line in `format`, without its newline.
    package func line(_ format: Configuration.LogFormat) -> String {
        var buffer = LogLineBuffer()
        var memory = LogLineMemory()
        append(to: &buffer, format: format, memory: &memory)
        return buffer.withUnsafeBytes { String(decoding: $0.dropLast(), as: UTF8.self) }
    }

    /// The JSON form, also the `description` (what a plain swift-log handler would print).
    package var description: String { line(.json) }
}

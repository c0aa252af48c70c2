// One access-log line (SPEC section 6): time, client address, method, status, X-Cache, operation
// name and hash, error code, duration, origin status and duration, response bytes, request id,
// user agent, Apollo client name and version. Never variables, never other header values.
// Built on the event loop from values it already holds; rendered on the log writer's thread.

/// What the access log records about one answered request.
package struct AccessLogEntry: Sendable, CustomStringConvertible {
    package var time: LogTimestamp
    package var client: String
    package var method: String
    package var status: Int
    /// `X-Cache`: HIT, STALE, MISS, BYPASS; nil for answers Breakwater gave itself.
    package var cache: String?
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

    package init(
        time: LogTimestamp, client: String, method: String, status: Int, cache: String? = nil,
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

    /// Longest user agent, client name or version kept: a client cannot blow up a line.
    package static let maxTextBytes = 256

    /// The line in `format`, without its newline.
    package func line(_ format: Configuration.LogFormat) -> String {
        switch format {
        case .json: json
        case .text: text
        }
    }

    /// The JSON form, also the `description` (what a plain swift-log handler would print).
    package var description: String { json }

    private var json: String {
        var line = "{\"time\":\"\(time.rfc3339)\",\"type\":\"access\",\"client\":\(JSONText.quoted(client))"
        line += ",\"method\":\(JSONText.quoted(method)),\"status\":\(status)"
        line += ",\"cache\":" + quotedOrNull(cache)
        line += ",\"operation\":" + quotedOrNull(operation)
        line += ",\"hash\":" + (hash.map { "\"\($0.hex)\"" } ?? "null")
        line += ",\"error_code\":" + quotedOrNull(errorCode)
        if let bypassReason { line += ",\"bypass_reason\":" + JSONText.quoted(bypassReason) }
        line += ",\"duration_ms\":" + Self.milliseconds(duration)
        line += ",\"origin_status\":" + (originStatus.map { "\($0)" } ?? "null")
        line += ",\"origin_ms\":" + (originDuration.map(Self.milliseconds) ?? "null")
        line += ",\"bytes\":\(bytes)"
        line += ",\"request_id\":" + quotedOrNull(requestID)
        line += ",\"user_agent\":" + quotedOrNull(userAgent.map(Self.bounded))
        line += ",\"client_name\":" + quotedOrNull(clientName.map(Self.bounded))
        line += ",\"client_version\":" + quotedOrNull(clientVersion.map(Self.bounded))
        return line + "}"
    }

    private var text: String {
        var fields: [(String, String)] = [
            ("client", client), ("method", method), ("status", "\(status)"), ("cache", cache ?? "-"),
            ("operation", operation ?? "-"), ("hash", hash?.hex ?? "-"), ("error_code", errorCode ?? "-"),
        ]
        if let bypassReason { fields.append(("bypass_reason", bypassReason)) }
        fields += [
            ("duration_ms", Self.milliseconds(duration)), ("origin_status", originStatus.map { "\($0)" } ?? "-"),
            ("origin_ms", originDuration.map(Self.milliseconds) ?? "-"), ("bytes", "\(bytes)"),
            ("request_id", requestID ?? "-"), ("user_agent", userAgent.map(Self.bounded) ?? "-"),
            ("client_name", clientName.map(Self.bounded) ?? "-"),
            ("client_version", clientVersion.map(Self.bounded) ?? "-"),
        ]
        var line = "\(time.rfc3339) access:"
        for (key, value) in fields { line += " \(key)=\(LogLineFormat.textValue(value))" }
        return line
    }

    private func quotedOrNull(_ value: String?) -> String {
        value.map(JSONText.quoted) ?? "null"
    }

    private static func bounded(_ value: String) -> String {
        value.utf8.count <= maxTextBytes ? value : String(decoding: value.utf8.prefix(maxTextBytes), as: UTF8.self)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return DecimalText.string(Double(seconds) * 1000 + Double(attoseconds) * 1e-15, fractionDigits: 3)
    }
}

extension AccessLogEntry {
    /// The metadata key an access-log event carries its entry under, for the log backend.
    package static let metadataKey = "access"
}

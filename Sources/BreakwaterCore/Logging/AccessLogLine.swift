// An access-log line (SPEC section 6) written straight into a loop's LogLineBuffer, in either
// `logging.format`: room for its longest form reserved once, then every field written through a
// raw cursor; no entry value built, no String per field, no capacity check per byte, and the
// time's text up to the second taken from a LogTimeCache.
//   text: 2026-11-23T16:04:05.123Z access: client=10.0.0.1 method=GET status=200 cache=HIT ...
//   json: {"time":"2026-11-23T16:04:05.123Z","type":"access","client":"10.0.0.1",...}

/// Writes access-log lines.
package enum AccessLogLine {
    /// Longest user agent, client name or version kept: a client cannot blow up a line.
    package static let maxTextBytes = 256

    /// Appends one line, its newline included, to `buffer`. The values are borrowed from the
    /// request for the time it takes (the proxy passes its own, nothing is copied to call this).
    package static func append(
        to buffer: inout LogLineBuffer, format: Configuration.LogFormat, memory: inout LogLineMemory,
        time: LogTimestamp, client: String, method: HTTPMethod, status: Int, cache: XCache?, operation: String?,
        hash: SHA256Digest?, errorCode: String?, bypassReason: String?, duration: Duration, originStatus: Int?,
        originDuration: Duration?, bytes: Int, requestID: String?, userAgent: String?, clientName: String?,
        clientVersion: String?
    ) {
        let room = fixedBound + ByteCursor.logBound(of: client) + ByteCursor.logBound(of: method.otherToken)
            + ByteCursor.logBound(of: operation) + ByteCursor.logBound(of: errorCode)
            + ByteCursor.logBound(of: bypassReason) + ByteCursor.logBound(of: requestID)
            + ByteCursor.logBound(of: userAgent, limit: maxTextBytes) + ByteCursor.logBound(of: clientName, limit: maxTextBytes)
            + ByteCursor.logBound(of: clientVersion, limit: maxTextBytes)
        /// The line in the format of `fields`, from its start to its newline.
        func write(_ fields: consuming some AccessLogFields) -> ByteCursor {
            var fields = fields
            fields.begin(time, times: &memory.times)
            fields.write(
                memory: &memory, client: client, method: method, status: status, cache: cache, operation: operation, hash: hash,
                errorCode: errorCode, bypassReason: bypassReason, duration: duration, originStatus: originStatus,
                originDuration: originDuration, bytes: bytes, requestID: requestID, userAgent: userAgent,
                clientName: clientName, clientVersion: clientVersion)
            fields.end()
            return fields.line
        }
        let start = ByteCursor(buffer.reserve(room))
        let end = format == .json ? write(JSONFields(line: start)) : write(TextFields(line: start))
        buffer.commit(upTo: end.position)
    }

    /// Room for everything but the string values: the time, the names and punctuation of the 17
    /// fields, three integers, two durations, the digest.
    private static let fixedBound = 512
}

/// One line's fields being written: absent values as the format spells them.
private protocol AccessLogFields {
    var line: ByteCursor { get set }
    /// Writes what comes before the fields: the time and the line's kind.
    mutating func begin(_ time: LogTimestamp, times: inout LogTimeCache)
    /// Writes what comes after the fields, the newline included.
    mutating func end()
    /// Starts a field: separator, name, and what comes between it and the value, one literal per
    /// format (`text` ` name=`, `json` `,"name":`), written whole.
    mutating func key(_ text: StaticString, _ json: StaticString)
    /// Writes an absent value.
    mutating func absent()
    /// Writes a string value (cut to `limit` bytes).
    mutating func value(_ text: String, limit: Int)
    /// Writes a digest's 64 hex digits (spelled once per new digest by `memory`).
    mutating func value(_ digest: SHA256Digest, memory: inout LogLineMemory)
    /// Writes a fixed plain word (an `X-Cache` value).
    mutating func word(_ text: StaticString)
    /// Writes a value known to be one plain word (a known method's token): copied, not scanned.
    mutating func word(_ text: String)
}

extension AccessLogFields {
    /// The fields in their order, SPEC section 6's list; the format decides how each is written.
    @inline(__always)
    mutating func write(
        memory: inout LogLineMemory, client: String, method: HTTPMethod, status: Int, cache: XCache?, operation: String?, hash: SHA256Digest?,
        errorCode: String?, bypassReason: String?, duration: Duration, originStatus: Int?, originDuration: Duration?,
        bytes: Int, requestID: String?, userAgent: String?, clientName: String?, clientVersion: String?
    ) {
        text(" client=", #","client":"#, client)
        key(" method=", #","method":"#)
        if case .other(let token) = method { value(token, limit: .max) } else { word(method.token) }
        integer(" status=", #","status":"#, status)
        key(" cache=", #","cache":"#)
        if let cache { word(cache.word) } else { absent() }
        text(" operation=", #","operation":"#, operation)
        digest(" hash=", #","hash":"#, hash, memory: &memory)
        text(" error_code=", #","error_code":"#, errorCode)
        if let bypassReason { text(" bypass_reason=", #","bypass_reason":"#, bypassReason) }
        milliseconds(" duration_ms=", #","duration_ms":"#, duration)
        integer(" origin_status=", #","origin_status":"#, originStatus)
        milliseconds(" origin_ms=", #","origin_ms":"#, originDuration)
        integer(" bytes=", #","bytes":"#, bytes)
        text(" request_id=", #","request_id":"#, requestID)
        text(" user_agent=", #","user_agent":"#, userAgent, limit: AccessLogLine.maxTextBytes)
        text(" client_name=", #","client_name":"#, clientName, limit: AccessLogLine.maxTextBytes)
        text(" client_version=", #","client_version":"#, clientVersion, limit: AccessLogLine.maxTextBytes)
    }

    @inline(__always)
    mutating func text(_ name: StaticString, _ jsonName: StaticString, _ value: String?, limit: Int = .max) {
        key(name, jsonName)
        if let value { self.value(value, limit: limit) } else { absent() }
    }

    @inline(__always)
    mutating func integer(_ name: StaticString, _ jsonName: StaticString, _ value: Int?) {
        key(name, jsonName)
        if let value { line.writeSignedDecimal(value) } else { absent() }
    }

    @inline(__always)
    mutating func milliseconds(_ name: StaticString, _ jsonName: StaticString, _ value: Duration?) {
        key(name, jsonName)
        if let value { line.writeMilliseconds(value) } else { absent() }
    }

    @inline(__always)
    mutating func digest(_ name: StaticString, _ jsonName: StaticString, _ value: SHA256Digest?, memory: inout LogLineMemory) {
        key(name, jsonName)
        if let value { self.value(value, memory: &memory) } else { absent() }
    }
}

/// `,"key":value` members; absent is `null`, strings are JSON strings.
private struct JSONFields: AccessLogFields {
    var line: ByteCursor

    @inline(__always)
    mutating func begin(_ time: LogTimestamp, times: inout LogTimeCache) {
        line.writeLiteral(#"{"time":""#)
        times.write(time, to: &line)
        line.writeLiteral(#"","type":"access""#)
    }

    @inline(__always)
    mutating func end() { line.writeLiteral("}\n") }

    @inline(__always)
    mutating func key(_ text: StaticString, _ json: StaticString) { line.writeLiteral(json) }

    @inline(__always)
    mutating func absent() { line.writeLiteral("null") }

    @inline(__always)
    mutating func value(_ text: String, limit: Int) { line.writeJSONString(text, limit: limit) }

    @inline(__always)
    mutating func value(_ digest: SHA256Digest, memory: inout LogLineMemory) {
        line.write(UInt8(ascii: "\""))
        memory.writeHex(digest, to: &line)
        line.write(UInt8(ascii: "\""))
    }

    @inline(__always)
    mutating func word(_ text: StaticString) {
        line.write(UInt8(ascii: "\""))
        line.writeLiteral(text)
        line.write(UInt8(ascii: "\""))
    }

    @inline(__always)
    mutating func word(_ text: String) {
        line.write(UInt8(ascii: "\""))
        line.write(text)
        line.write(UInt8(ascii: "\""))
    }
}

/// ` key=value` fields; absent is `-`, strings are bare when one plain word, else JSON-quoted.
private struct TextFields: AccessLogFields {
    var line: ByteCursor

    @inline(__always)
    mutating func begin(_ time: LogTimestamp, times: inout LogTimeCache) {
        times.write(time, to: &line)
        line.writeLiteral(" access:")
    }

    @inline(__always)
    mutating func end() { line.write(UInt8(ascii: "\n")) }

    @inline(__always)
    mutating func key(_ text: StaticString, _ json: StaticString) { line.writeLiteral(text) }

    @inline(__always)
    mutating func absent() { line.write(UInt8(ascii: "-")) }

    @inline(__always)
    mutating func value(_ text: String, limit: Int) { line.writeTextValue(text, limit: limit) }

    /// 64 hex digits are one plain word: bare.
    @inline(__always)
    mutating func value(_ digest: SHA256Digest, memory: inout LogLineMemory) { memory.writeHex(digest, to: &line) }

    @inline(__always)
    mutating func word(_ text: StaticString) { line.writeLiteral(text) }

    @inline(__always)
    mutating func word(_ text: String) { line.write(text) }
}

extension HTTPMethod {
    /// The token of an unknown method, the one that is written as a string.
    fileprivate var otherToken: String? {
        if case .other(let token) = self { token } else { nil }
    }
}

extension XCache {
    /// The `X-Cache` value as a literal.
    @inline(__always)
    fileprivate var word: StaticString {
        switch self {
        case .hit: "HIT"
        case .stale: "STALE"
        case .miss: "MISS"
        case .bypass: "BYPASS"
        }
    }
}

// An access-log line (docs/OPERATING.md, "The access log") spelled by the log writer thread from a loop's record
// (AccessLogRecord), in the format the record names: room for its longest form reserved once,
// then every field written through a raw cursor; no String per field, no capacity check per byte,
// and the time's text up to the second taken from a LogTimeCache.
//   text: 2026-11-23T16:04:05.123Z access: client=10.0.0.1 method=GET status=200 cache=HIT ...
//   json: {"time":"2026-11-23T16:04:05.123Z","type":"access","client":"10.0.0.1",...}
// A freshness sampling fetch's line (method SAMPLE) adds `changed` and `age` (seconds) at its end.

/// Writes access-log lines.
package enum AccessLogLine {
    /// Longest user agent kept: a client cannot blow up a line (operation and client names and
    /// versions are cut to `RecordedName.maxBytes` when packed).
    package static let maxTextBytes = 256

    /// Appends the line of every record in `records` (bytes `AccessLogRecord.append` wrote), each
    /// in the format its record names, newline included, to `buffer`.
    package static func append(records: UnsafeRawBufferPointer, to buffer: inout LogLineBuffer, memory: inout LogLineMemory) {
        AccessLogRecord.forEach(in: records) { append($0, to: &buffer, memory: &memory) }
    }

    /// Appends one record's line, its newline included, to `buffer`.
    package static func append(_ record: borrowing AccessLogRecord.Fields, to buffer: inout LogLineBuffer, memory: inout LogLineMemory) {
        let room = fixedBound + bound(record.client) + bound(record.methodToken) + bound(record.operation)
            + bound(record.errorCode) + bound(record.bypassReason) + bound(record.requestID) + bound(record.userAgent)
            + bound(record.clientName) + bound(record.clientVersion) + (record.sample == nil ? 0 : sampleBound)
        /// The line in the format of `fields`, from its start to its newline.
        func write(_ fields: consuming some AccessLogFields) -> ByteCursor {
            var fields = fields
            fields.begin(record.time, times: &memory.times)
            fields.write(record, memory: &memory)
            fields.end()
            return fields.line
        }
        let start = ByteCursor(buffer.reserve(room))
        let end = record.format == .json ? write(JSONFields(line: start)) : write(TextFields(line: start))
        buffer.commit(upTo: end.position)
    }

    /// Room a string value may take (`ByteCursor.logBound`).
    @inline(__always)
    private static func bound(_ text: UnsafeBufferPointer<UInt8>?) -> Int { ByteCursor.logBound(ofCount: text?.count) }

    /// Room for everything but the string values: the time, the names and punctuation of the 17
    /// fields, three integers, two durations, the digest.
    private static let fixedBound = 512

    /// Room for a freshness sample's two fields: names, punctuation, a Boolean and a duration.
    private static let sampleBound = 64
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
    /// Writes a string value.
    mutating func value(_ text: UnsafeBufferPointer<UInt8>)
    /// Writes a digest's 64 hex digits (spelled once per new digest by `memory`).
    mutating func value(_ digest: SHA256Digest, memory: inout LogLineMemory)
    /// Writes a fixed plain word (an `X-Cache` value).
    mutating func word(_ text: StaticString)
    /// Writes a value known to be one plain word (a known method's token): copied, not scanned.
    mutating func word(_ text: String)
}

extension AccessLogFields {
    /// The fields in their order, docs/OPERATING.md's list; the format decides how each is written.
    @inline(__always)
    mutating func write(_ record: borrowing AccessLogRecord.Fields, memory: inout LogLineMemory) {
        text(" client=", #","client":"#, record.client)
        key(" method=", #","method":"#)
        if let method = record.method { word(method.token) } else { text(record.methodToken) }
        key(" protocol=", #","protocol":"#)
        word(record.version == .http2 ? "HTTP/2" : "HTTP/1.1")
        integer(" status=", #","status":"#, record.status)
        key(" cache=", #","cache":"#)
        if let cache = record.cache { word(cache.word) } else { absent() }
        text(" operation=", #","operation":"#, record.operation)
        digest(" hash=", #","hash":"#, record.hash, memory: &memory)
        text(" error_code=", #","error_code":"#, record.errorCode)
        text(" bypass_reason=", #","bypass_reason":"#, record.bypassReason)
        milliseconds(" duration_ms=", #","duration_ms":"#, record.duration)
        integer(" origin_status=", #","origin_status":"#, record.originStatus)
        milliseconds(" origin_ms=", #","origin_ms":"#, record.originDuration)
        integer(" bytes=", #","bytes":"#, record.bytes)
        text(" request_id=", #","request_id":"#, record.requestID)
        text(" user_agent=", #","user_agent":"#, record.userAgent)
        text(" client_name=", #","client_name":"#, record.clientName)
        text(" client_version=", #","client_version":"#, record.clientVersion)
        // A freshness sampling fetch's line (`method=SAMPLE`) ends with what it found.
        if let sample = record.sample {
            key(" changed=", #","changed":"#)
            if let changed = sample.changed { bare(changed ? "true" : "false") } else { absent() }
            key(" age=", #","age":"#)
            line.writeSeconds(sample.age)
        }
    }

    /// Writes a literal that both formats write bare (a Boolean).
    @inline(__always)
    mutating func bare(_ text: StaticString) { line.writeLiteral(text) }

    @inline(__always)
    mutating func text(_ value: UnsafeBufferPointer<UInt8>?) {
        if let value { self.value(value) } else { absent() }
    }

    @inline(__always)
    mutating func text(_ name: StaticString, _ jsonName: StaticString, _ value: UnsafeBufferPointer<UInt8>?) {
        key(name, jsonName)
        text(value)
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
    mutating func value(_ text: UnsafeBufferPointer<UInt8>) { line.writeJSONString(text) }

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
    mutating func value(_ text: UnsafeBufferPointer<UInt8>) { line.writeTextValue(text) }

    /// 64 hex digits are one plain word: bare.
    @inline(__always)
    mutating func value(_ digest: SHA256Digest, memory: inout LogLineMemory) { memory.writeHex(digest, to: &line) }

    @inline(__always)
    mutating func word(_ text: StaticString) { line.writeLiteral(text) }

    @inline(__always)
    mutating func word(_ text: String) { line.write(text) }
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

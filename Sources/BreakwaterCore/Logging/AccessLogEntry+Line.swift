// An access-log entry written straight into a byte buffer, in either `logging.format`: no String
// per field, no dictionary, no date formatting (the second's text comes from a LogTimeCache).
//   text: 2026-11-23T16:04:05.123Z access: client=10.0.0.1 method=GET status=200 cache=HIT ...
//   json: {"time":"2026-11-23T16:04:05.123Z","type":"access","client":"10.0.0.1",...}

extension AccessLogEntry {
    /// Appends the line, without its newline, to `out`.
    package func append(to out: inout [UInt8], format: Configuration.LogFormat, times: inout LogTimeCache) {
        switch format {
        case .json:
            var line = JSONFields(out: out)
            out = []  // the writer holds the only reference: no copy on append
            line.out.append(contentsOf: #"{"time":""#.utf8)
            times.append(time, to: &line.out)
            line.out.append(contentsOf: #"","type":"access""#.utf8)
            appendFields(to: &line)
            line.out.append(UInt8(ascii: "}"))
            out = line.out
        case .text:
            times.append(time, to: &out)
            out.append(contentsOf: " access:".utf8)
            var line = TextFields(out: out)
            out = []
            appendFields(to: &line)
            out = line.out
        }
    }

    /// The fields in their order, SPEC section 6's list; the format decides how each is written.
    private func appendFields(to line: inout some AccessLogFields) {
        line.text("client", client)
        line.text("method", method)
        line.integer("status", status)
        line.text("cache", cache)
        line.text("operation", operation)
        line.hash("hash", hash)
        line.text("error_code", errorCode)
        if let bypassReason { line.text("bypass_reason", bypassReason) }
        line.milliseconds("duration_ms", duration)
        line.integer("origin_status", originStatus)
        line.milliseconds("origin_ms", originDuration)
        line.integer("bytes", bytes)
        line.text("request_id", requestID)
        line.text("user_agent", userAgent, limit: Self.maxTextBytes)
        line.text("client_name", clientName, limit: Self.maxTextBytes)
        line.text("client_version", clientVersion, limit: Self.maxTextBytes)
    }
}

/// One line's fields being written: absent values as the format spells them.
private protocol AccessLogFields {
    var out: [UInt8] { get set }
    /// Starts the field `name` (separator, name, and what comes between it and the value).
    mutating func key(_ name: StaticString)
    /// Writes an absent value.
    mutating func absent()
    /// Writes a string value (cut to `limit` bytes).
    mutating func value(_ text: String, limit: Int)
    /// Writes a digest's 64 hex digits.
    mutating func value(_ digest: SHA256Digest)
}

extension AccessLogFields {
    mutating func text(_ name: StaticString, _ value: String?, limit: Int = .max) {
        key(name)
        if let value { self.value(value, limit: limit) } else { absent() }
    }

    mutating func integer(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { LogLineBytes.appendDecimal(value, to: &out) } else { absent() }
    }

    mutating func milliseconds(_ name: StaticString, _ value: Duration?) {
        key(name)
        if let value { LogLineBytes.appendMilliseconds(value, to: &out) } else { absent() }
    }

    mutating func hash(_ name: StaticString, _ value: SHA256Digest?) {
        key(name)
        if let value { self.value(value) } else { absent() }
    }

    fileprivate mutating func appendName(_ name: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}

/// `,"key":value` members; absent is `null`, strings are JSON strings.
private struct JSONFields: AccessLogFields {
    var out: [UInt8]

    mutating func key(_ name: StaticString) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        appendName(name)
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    mutating func absent() { out.append(contentsOf: "null".utf8) }

    mutating func value(_ text: String, limit: Int) { LogLineBytes.appendQuoted(text, limit: limit, to: &out) }

    mutating func value(_ digest: SHA256Digest) {
        out.append(UInt8(ascii: "\""))
        LogLineBytes.appendHex(digest, to: &out)
        out.append(UInt8(ascii: "\""))
    }
}

/// ` key=value` fields; absent is `-`, strings are bare when one plain word, else JSON-quoted.
private struct TextFields: AccessLogFields {
    var out: [UInt8]

    mutating func key(_ name: StaticString) {
        out.append(UInt8(ascii: " "))
        appendName(name)
        out.append(UInt8(ascii: "="))
    }

    mutating func absent() { out.append(UInt8(ascii: "-")) }

    mutating func value(_ text: String, limit: Int) { LogLineBytes.appendTextValue(text, limit: limit, to: &out) }

    /// 64 hex digits are one plain word: bare.
    mutating func value(_ digest: SHA256Digest) { LogLineBytes.appendHex(digest, to: &out) }
}

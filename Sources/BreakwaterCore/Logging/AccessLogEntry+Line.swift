// An access-log entry written straight into a byte buffer, in either `logging.format`: no String
// per field, no dictionary, no date formatting (the second's text comes from a LogTimeCache).
//   text: 2026-11-23T16:04:05.123Z access: client=10.0.0.1 method=GET status=200 cache=HIT ...
//   json: {"time":"2026-11-23T16:04:05.123Z","type":"access","client":"10.0.0.1",...}

extension AccessLogEntry {
    /// Appends the line, without its newline, to `out`.
    package func append(to out: inout [UInt8], format: Configuration.LogFormat, times: inout LogTimeCache) {
        switch format {
        case .json: appendJSON(to: &out, times: &times)
        case .text: appendText(to: &out, times: &times)
        }
    }

    private func appendJSON(to out: inout [UInt8], times: inout LogTimeCache) {
        var line = JSONLine(out: out)
        out = []
        line.raw(#"{"time":""#)
        times.append(time, to: &line.out)
        line.raw(#"","type":"access""#)
        line.string("client", client)
        line.string("method", method)
        line.integer("status", status)
        line.string("cache", cache)
        line.string("operation", operation)
        line.key("hash")
        if let hash {
            line.out.append(UInt8(ascii: "\""))
            LogLineBytes.appendHex(hash, to: &line.out)
            line.out.append(UInt8(ascii: "\""))
        } else {
            line.raw("null")
        }
        line.string("error_code", errorCode)
        if let bypassReason { line.string("bypass_reason", bypassReason) }
        line.milliseconds("duration_ms", duration)
        line.integer("origin_status", originStatus)
        line.milliseconds("origin_ms", originDuration)
        line.integer("bytes", bytes)
        line.string("request_id", requestID)
        line.string("user_agent", userAgent, limit: Self.maxTextBytes)
        line.string("client_name", clientName, limit: Self.maxTextBytes)
        line.string("client_version", clientVersion, limit: Self.maxTextBytes)
        line.raw("}")
        out = line.out
    }

    private func appendText(to out: inout [UInt8], times: inout LogTimeCache) {
        times.append(time, to: &out)
        out.append(contentsOf: " access:".utf8)
        var line = TextLine(out: out)
        out = []
        line.value("client", client)
        line.value("method", method)
        line.integer("status", status)
        line.value("cache", cache)
        line.value("operation", operation)
        line.key("hash")
        if let hash { LogLineBytes.appendHex(hash, to: &line.out) } else { line.out.append(UInt8(ascii: "-")) }
        line.value("error_code", errorCode)
        if let bypassReason { line.value("bypass_reason", bypassReason) }
        line.milliseconds("duration_ms", duration)
        line.integer("origin_status", originStatus)
        line.milliseconds("origin_ms", originDuration)
        line.integer("bytes", bytes)
        line.value("request_id", requestID)
        line.value("user_agent", userAgent, limit: Self.maxTextBytes)
        line.value("client_name", clientName, limit: Self.maxTextBytes)
        line.value("client_version", clientVersion, limit: Self.maxTextBytes)
        out = line.out
    }
}

/// `,"key":value` members of a JSON line; an absent value is `null`.
private struct JSONLine {
    var out: [UInt8]

    mutating func raw(_ text: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func key(_ name: StaticString) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        raw(name)
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    mutating func string(_ name: StaticString, _ value: String?, limit: Int = .max) {
        key(name)
        if let value { LogLineBytes.appendQuoted(value, limit: limit, to: &out) } else { raw("null") }
    }

    mutating func integer(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { LogLineBytes.appendDecimal(value, to: &out) } else { raw("null") }
    }

    mutating func milliseconds(_ name: StaticString, _ value: Duration?) {
        key(name)
        if let value { LogLineBytes.appendMilliseconds(value, to: &out) } else { raw("null") }
    }
}

/// ` key=value` fields of a text line; an absent value is `-`.
private struct TextLine {
    var out: [UInt8]

    mutating func key(_ name: StaticString) {
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(UInt8(ascii: "="))
    }

    mutating func value(_ name: StaticString, _ value: String?, limit: Int = .max) {
        key(name)
        if let value { LogLineBytes.appendTextValue(value, limit: limit, to: &out) } else { out.append(UInt8(ascii: "-")) }
    }

    mutating func integer(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { LogLineBytes.appendDecimal(value, to: &out) } else { out.append(UInt8(ascii: "-")) }
    }

    mutating func milliseconds(_ name: StaticString, _ value: Duration?) {
        key(name)
        if let value { LogLineBytes.appendMilliseconds(value, to: &out) } else { out.append(UInt8(ascii: "-")) }
    }
}

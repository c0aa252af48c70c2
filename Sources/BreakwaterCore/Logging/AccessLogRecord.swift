// One answered request's access-log fields as an event loop hands them to the log writer thread
//: packed into the loop's buffer as a compact record (fixed-width numbers, the digest's
// 32 bytes, each string's bytes behind its length), and spelled as a text or JSON line by the
// writer (AccessLogLine), off the loop. The loop's share of a line is then a few copies; the
// keys, the escaping, the decimals and the time's text are the writer's.
//
// Layout, native byte order, no alignment:
//   0  UInt32 record size      4 UInt8 format (1 text, 2 JSON)   5 UInt8 X-Cache (0 none)
//   6  UInt8 flags (digest, origin status, origin duration, HTTP/2, sample)   7 UInt8 method (0xFF: other)
//   8  Int64 time (ms since the epoch)   16 Int64 bytes   24 Int64 status   32 Int64 origin status
//   40 Duration (its 16 bytes)   56 Duration, the origin's
//   72 32 bytes digest
//   104 nine strings, each a UInt32 length (UInt32.max: absent) and its bytes: client, method
//       token (other methods), operation, error code, bypass reason, request id, user agent,
//       client name, client version.
//   then, on a freshness sample's record only (flag 16): UInt8 changed (0 unknown, 1 no, 2 yes)
//       and the Duration of the stored answer's age (its 16 bytes); no other record carries them.

/// Packs access-log records and reads them back.
package enum AccessLogRecord {
    private static let headerSize = 104
    private static let stringCount = 9
    private static let absent = UInt32.max

    private static let hasDigest: UInt8 = 1
    private static let hasOriginStatus: UInt8 = 2
    private static let hasOriginDuration: UInt8 = 4
    private static let overHTTP2: UInt8 = 8
    private static let hasSample: UInt8 = 16
    private static let sampleSize = 1 + 16

    /// What a freshness sampling fetch found (docs/FRESHNESS.md), on its `SAMPLE` line.
    package struct Sample: Sendable, Equatable {
        /// Whether the answer differed from the stored one; nil when there was no answer to compare.
        package var changed: Bool?
        /// The stored answer's age when the sampling fetch ended.
        package var age: Duration

        package init(changed: Bool?, age: Duration) {
            self.changed = changed
            self.age = age
        }
    }

    /// Appends one record to `buffer`. Client-sent texts are cut at a character boundary here, so a
    /// record is never larger than its line needs: the user agent to `AccessLogLine.maxTextBytes`,
    /// the operation and client name and version to `RecordedName.maxBytes`.
    @inline(__always)
    package static func append(
        to buffer: inout LogLineBuffer, format: Configuration.LogFormat, time: LogTimestamp, client: String?,
        method: HTTPMethod?, version: HTTPVersion = .http1, status: Int, cache: XCache?, operation: String?, hash: SHA256Digest?, errorCode: String?,
        bypassReason: String?, duration: Duration, originStatus: Int?, originDuration: Duration?, bytes: Int,
        requestID: String?, userAgent: String?, clientName: String?, clientVersion: String?, sample: Sample? = nil
    ) {
        let limit = AccessLogLine.maxTextBytes, nameLimit = RecordedName.maxBytes
        // No method (a request the HTTP engine could not read): the other-method code, no token.
        let methodCode = method?.recordCode ?? otherMethod
        let otherToken: String? = methodCode == otherMethod ? method?.token : nil
        let room = headerSize + 4 * stringCount + count(client) + count(otherToken) + count(errorCode)
            + count(bypassReason) + count(requestID) + Swift.min(count(userAgent), limit)
            + Swift.min(count(operation), nameLimit) + Swift.min(count(clientName), nameLimit)
            + Swift.min(count(clientVersion), nameLimit) + (sample == nil ? 0 : sampleSize)
        let start = buffer.reserve(room)
        let raw = UnsafeMutableRawPointer(start)
        var flags: UInt8 = version == .http2 ? overHTTP2 : 0
        raw.storeBytes(of: format == .json ? 2 : 1, toByteOffset: 4, as: UInt8.self)
        raw.storeBytes(of: cache?.recordCode ?? 0, toByteOffset: 5, as: UInt8.self)
        raw.storeBytes(of: methodCode, toByteOffset: 7, as: UInt8.self)
        raw.storeBytes(of: time.millisecondsSinceEpoch, toByteOffset: 8, as: Int64.self)
        raw.storeBytes(of: Int64(bytes), toByteOffset: 16, as: Int64.self)
        raw.storeBytes(of: Int64(status), toByteOffset: 24, as: Int64.self)
        if let originStatus {
            flags |= hasOriginStatus
            raw.storeBytes(of: Int64(originStatus), toByteOffset: 32, as: Int64.self)
        }
        store(duration, at: 40, in: raw)
        if let originDuration {
            flags |= hasOriginDuration
            store(originDuration, at: 56, in: raw)
        }
        if let hash {
            flags |= hasDigest
            raw.storeBytes(of: hash.words, toByteOffset: 72, as: (UInt64, UInt64, UInt64, UInt64).self)
        }
        var cursor = ByteCursor(start + headerSize)
        put(client, to: &cursor)
        put(otherToken, to: &cursor)
        put(operation, limit: nameLimit, to: &cursor)
        put(errorCode, to: &cursor)
        put(bypassReason, to: &cursor)
        put(requestID, to: &cursor)
        put(userAgent, limit: limit, to: &cursor)
        put(clientName, limit: nameLimit, to: &cursor)
        put(clientVersion, limit: nameLimit, to: &cursor)
        if let sample {
            flags |= hasSample
            let trailer = UnsafeMutableRawPointer(cursor.position)
            trailer.storeBytes(of: sample.changed.map { $0 ? 2 : 1 } ?? 0, as: UInt8.self)
            store(sample.age, at: 1, in: trailer)
            cursor.skip(sampleSize)
        }
        raw.storeBytes(of: flags, toByteOffset: 6, as: UInt8.self)
        raw.storeBytes(of: UInt32(cursor.position - start), toByteOffset: 0, as: UInt32.self)
        buffer.commit(upTo: cursor.position)
    }

    /// Calls `body` with each record's fields in `records` (bytes `append` wrote), in order.
    package static func forEach(in records: UnsafeRawBufferPointer, _ body: (borrowing Fields) -> Void) {
        guard let base = records.baseAddress else { return }
        var offset = 0
        while offset + headerSize <= records.count {
            let record = base + offset
            let size = Int(record.loadUnaligned(as: UInt32.self))
            precondition(size >= headerSize + 4 * stringCount && offset + size <= records.count, "a damaged access-log record")
            body(Fields(record))
            offset += size
        }
    }

    /// One record's fields, read in place: the strings point into the record.
    package struct Fields: ~Copyable {
        package let format: Configuration.LogFormat
        package let time: LogTimestamp
        package let cache: XCache?
        package let version: HTTPVersion
        /// A known method; nil for another one, whose token is `methodToken`.
        package let method: HTTPMethod?
        package let status: Int
        package let originStatus: Int?
        package let duration: Duration
        package let originDuration: Duration?
        package let bytes: Int
        package let hash: SHA256Digest?
        package let client: UnsafeBufferPointer<UInt8>?
        package let methodToken: UnsafeBufferPointer<UInt8>?
        package let operation: UnsafeBufferPointer<UInt8>?
        package let errorCode: UnsafeBufferPointer<UInt8>?
        package let bypassReason: UnsafeBufferPointer<UInt8>?
        package let requestID: UnsafeBufferPointer<UInt8>?
        package let userAgent: UnsafeBufferPointer<UInt8>?
        package let clientName: UnsafeBufferPointer<UInt8>?
        package let clientVersion: UnsafeBufferPointer<UInt8>?
        /// On a freshness sample's record only.
        package let sample: Sample?

        fileprivate init(_ raw: UnsafeRawPointer) {
            let flags = raw.load(fromByteOffset: 6, as: UInt8.self)
            format = raw.load(fromByteOffset: 4, as: UInt8.self) == 2 ? .json : .text
            cache = XCache(recordCode: raw.load(fromByteOffset: 5, as: UInt8.self))
            version = flags & overHTTP2 != 0 ? .http2 : .http1
            method = HTTPMethod(recordCode: raw.load(fromByteOffset: 7, as: UInt8.self))
            time = LogTimestamp(millisecondsSinceEpoch: raw.loadUnaligned(fromByteOffset: 8, as: Int64.self))
            bytes = Int(raw.loadUnaligned(fromByteOffset: 16, as: Int64.self))
            status = Int(raw.loadUnaligned(fromByteOffset: 24, as: Int64.self))
            originStatus = flags & hasOriginStatus != 0 ? Int(raw.loadUnaligned(fromByteOffset: 32, as: Int64.self)) : nil
            duration = loadDuration(at: 40, in: raw)
            originDuration = flags & hasOriginDuration != 0 ? loadDuration(at: 56, in: raw) : nil
            hash = flags & hasDigest != 0
                ? SHA256Digest(words: raw.loadUnaligned(fromByteOffset: 72, as: (UInt64, UInt64, UInt64, UInt64).self)) : nil
            var offset = headerSize
            client = take(raw, &offset)
            methodToken = take(raw, &offset)
            operation = take(raw, &offset)
            errorCode = take(raw, &offset)
            bypassReason = take(raw, &offset)
            requestID = take(raw, &offset)
            userAgent = take(raw, &offset)
            clientName = take(raw, &offset)
            clientVersion = take(raw, &offset)
            if flags & hasSample != 0 {
                let changed = raw.load(fromByteOffset: offset, as: UInt8.self)
                sample = Sample(changed: changed == 0 ? nil : changed == 2, age: loadDuration(at: offset + 1, in: raw))
            } else {
                sample = nil
            }
        }
    }

    /// The code of other methods, whose token the record carries.
    fileprivate static let otherMethod: UInt8 = 0xFF

    @inline(__always)
    private static func count(_ text: String?) -> Int { text?.utf8.count ?? 0 }

    /// A duration's 16 bytes as they are (`components` costs a 128-bit division).
    @inline(__always)
    private static func store(_ duration: Duration, at offset: Int, in raw: UnsafeMutableRawPointer) {
        raw.storeBytes(of: duration, toByteOffset: offset, as: Duration.self)
    }

    @inline(__always)
    private static func loadDuration(at offset: Int, in raw: UnsafeRawPointer) -> Duration {
        raw.loadUnaligned(fromByteOffset: offset, as: Duration.self)
    }

    /// Writes `text`'s length and bytes, at most `limit` of them (cut before a character's first byte).
    @inline(__always)
    private static func put(_ text: String?, limit: Int = .max, to cursor: inout ByteCursor) {
        guard let text else {
            UnsafeMutableRawPointer(cursor.position).storeBytes(of: absent, as: UInt32.self)
            return cursor.skip(4)
        }
        text.withUTF8Bytes { bytes in
            let kept = LogLineBytes.boundedCount(bytes, limit: limit)
            UnsafeMutableRawPointer(cursor.position).storeBytes(of: UInt32(kept), as: UInt32.self)
            cursor.skip(4)
            if let base = bytes.baseAddress { cursor.write(base, count: kept) }
        }
    }

    /// Reads the string at `offset` and moves past it.
    @inline(__always)
    private static func take(_ raw: UnsafeRawPointer, _ offset: inout Int) -> UnsafeBufferPointer<UInt8>? {
        let length = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        guard length != absent else { return nil }
        defer { offset += Int(length) }
        return UnsafeBufferPointer(start: (raw + offset).assumingMemoryBound(to: UInt8.self), count: Int(length))
    }
}

extension HTTPMethod {
    /// A known method's code in a record, `AccessLogRecord.otherMethod` for any other.
    @inline(__always)
    fileprivate var recordCode: UInt8 {
        switch self {
        case .get: 0
        case .head: 1
        case .post: 2
        case .put: 3
        case .delete: 4
        case .options: 5
        case .patch: 6
        case .other: AccessLogRecord.otherMethod
        }
    }

    fileprivate init?(recordCode: UInt8) {
        switch recordCode {
        case 0: self = .get
        case 1: self = .head
        case 2: self = .post
        case 3: self = .put
        case 4: self = .delete
        case 5: self = .options
        case 6: self = .patch
        default: return nil
        }
    }
}

extension XCache {
    @inline(__always)
    fileprivate var recordCode: UInt8 {
        switch self {
        case .hit: 1
        case .stale: 2
        case .miss: 3
        case .bypass: 4
        }
    }

    fileprivate init?(recordCode: UInt8) {
        switch recordCode {
        case 1: self = .hit
        case 2: self = .stale
        case 3: self = .miss
        case 4: self = .bypass
        default: return nil
        }
    }
}

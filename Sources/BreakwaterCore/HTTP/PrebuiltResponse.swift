// A cached response's fixed header lines and body, kept so that every answer from it writes them
// with no formatting beyond a few digits and no copy of the body: the entity tag as 8 bytes, the
// stored lines (usually none) and the body in one array, Content-Length from its count.

/// `ETag`, the stored header lines and `Content-Length` (written when answering), then the body.
///
/// The engine writes a status line and the per-request header lines (Date, Age, X-Cache,
/// X-Request-Id, CORS...), then `writeHead(at:)`'s lines, then the body from `bytes`; a HEAD
/// answer stops after the head. With no stored lines, `bytes` is the body array the origin's
/// answer arrived in, kept as it is (no copy when storing, no array of lines per entry).
package struct PrebuiltResponse: Sendable {
    /// The stored `Name: value\r\n` lines, then the body.
    package let bytes: [UInt8]
    /// One word for two things (16 bytes in all, so that a cache entry stays a 112-byte
    /// allocation): with stored lines, `CompactETag.reservedHigh` in the top half and their
    /// length in the bottom half, and the entity tag, if any, among the lines; without, the
    /// compact entity tag written first, or 0 for none.
    private let word: UInt64

    /// The compact tag written before the lines, if there is one.
    @inline(__always)
    private var compactETag: CompactETag? { linesCount == 0 ? CompactETag(value: word) : nil }

    /// Where the body starts in `bytes`: the stored lines' length.
    @inline(__always)
    private var linesCount: Int { word >> 32 == CompactETag.reservedHigh ? Int(word & 0xFFFF_FFFF) : 0 }

    /// Stores `fields` (written in order, each `Name: value`) and `body`. When `fields` is only
    /// an `ETag` of the compact form (or nothing), the tag is kept in 8 bytes and the body array
    /// as it is, if it holds little unused capacity; otherwise the lines precede the body.
    package init(fields: [HTTPHeaderField], body: [UInt8]) {
        var lines = fields[...]
        var tag: CompactETag?
        if let first = lines.first, first.name == "ETag", let compact = CompactETag(quoted: first.value) {
            tag = compact
            lines = lines.dropFirst()
        }
        guard !lines.isEmpty else {
            word = tag?.value ?? 0
            bytes = Self.tight(body)
            return
        }
        // Lines to store: the tag goes back among them, as text.
        if tag != nil { lines = fields[...] }
        var size = body.count
        for field in lines { size += field.name.utf8.count + field.value.utf8.count + 4 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for field in lines {
            bytes.appendText(field.name)
            bytes.appendText(": ")
            bytes.appendText(field.value)
            bytes.appendText("\r\n")
        }
        word = CompactETag.reservedHigh << 32 | UInt64(UInt32(bytes.count))
        bytes.append(contentsOf: body)
        self.bytes = bytes
    }

    /// `body` itself when its unused capacity is small (an origin's body read to its announced
    /// length), else a copy of exactly its size: an entry holds the array as long as it lives.
    private static func tight(_ body: [UInt8]) -> [UInt8] {
        let unused = body.capacity - body.count
        guard unused > 64 && unused > body.count / 16 else { return body }
        return [UInt8](unsafeUninitializedCapacity: body.count) { buffer, count in
            _ = buffer.initialize(from: body)
            count = body.count
        }
    }

    /// Where the body starts in `bytes`.
    @inline(__always)
    package var bodyStart: Int { linesCount }

    package var bodyCount: Int { bytes.count - bodyStart }

    /// At least the bytes `writeHead(at:)` writes.
    @inline(__always)
    package var headBound: Int { Self.etagLineCount + linesCount + Self.contentLengthLineBound }

    private static let etagLineCount = 6 + CompactETag.quotedCount + 2
    private static let contentLengthLineBound = 16 + 20 + 4

    /// Writes the head at `start`: the ETag line, the stored lines, `Content-Length` and the blank
    /// line ending the head; returns the bytes written (at most `headBound`).
    @inline(__always)
    package func writeHead(at start: UnsafeMutablePointer<UInt8>) -> Int {
        var head = ByteCursor(start)
        let linesCount = self.linesCount
        if let compactETag {
            head.writeLiteral("ETag: ")
            compactETag.write(at: head.position)
            head.skip(CompactETag.quotedCount)
            head.writeLiteral("\r\n")
        } else if linesCount > 0 {
            bytes.withUnsafeBytes { head.write($0.baseAddress!, count: linesCount) }
        }
        head.writeLiteral("Content-Length: ")
        head.writeDecimal(bodyCount)
        head.writeLiteral("\r\n\r\n")
        return head.position - start
    }

    /// The head as `writeHead(at:)` writes it.
    package var head: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: headBound) { buffer, count in
            count = writeHead(at: buffer.baseAddress!)
        }
    }

    /// A copy of the body (for the paths that transform it: batches, shared tiers), or the
    /// stored array itself when no lines precede it.
    package var body: [UInt8] { linesCount == 0 ? bytes : Array(bytes[bodyStart...]) }

    /// The entity tag, quoted, from the compact form or the first stored `ETag` line; nil if none.
    package var etag: String? { compactETag?.quoted ?? lineFields.first { $0.name == "ETag" }?.value }

    /// The value of the first head line called `name` (ASCII case-insensitive), or nil.
    package func value(of name: String) -> String? {
        if name.equalsIgnoringASCIICase("ETag") { return etag }
        if name.equalsIgnoringASCIICase("Content-Length") { return String(bodyCount) }
        return lineFields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The stored lines other than ETag, as fields (a tag header for the CDN in front, say).
    package var storedFields: [HTTPHeaderField] { lineFields.filter { $0.name != "ETag" } }

    /// Every stored line, as a field.
    private var lineFields: [HTTPHeaderField] {
        bytes[..<bodyStart].split(separator: 10).compactMap { line in
            guard let colon = line.firstIndex(of: 58) else { return nil }
            let value = line[(colon + 2)...].dropLast()  // the CR
            return HTTPHeaderField(
                name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }
}

extension [UInt8] {
    /// Appends `text`'s UTF-8 bytes with one copy from its contiguous storage (the generic
    /// `append(contentsOf: text.utf8)` walks them one by one).
    @inline(__always)
    package mutating func appendText(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) == nil {
            append(contentsOf: text.utf8)
        }
    }
}

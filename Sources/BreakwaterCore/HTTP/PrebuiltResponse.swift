// A cached response's fixed header lines and body, kept so that every answer from it writes them
// with no formatting beyond a few digits and no copy of the body: the entity tag as 8 bytes, the
// stored lines (usually none) and the body in the memory of the object that holds them (a cache
// entry's own allocation), Content-Length from their count.

/// `ETag`, the stored header lines and `Content-Length` (written when answering), then the body.
///
/// The engine writes a status line and the per-request header lines (Date, Age, X-Cache,
/// X-Request-Id, CORS...), then `writeHead(at:)`'s lines, then the body; a HEAD answer stops
/// after the head. The bytes live in `owner`'s memory: a cache entry's answer is a view of the
/// entry's own allocation (the entry's fields, then its lines and body, in one block).
package struct PrebuiltResponse: @unchecked Sendable {
    // Sendable: the bytes never change once written, and `owner` keeps them alive.

    /// The object whose memory holds the bytes: a cache entry (its tail) or a `PrebuiltBlock`.
    private let owner: AnyObject
    /// The stored `Name: value\r\n` lines, then the body.
    private let start: UnsafePointer<UInt8>
    /// The stored bytes: lines and body.
    package let count: Int
    /// One word for two things (a cache entry keeps it in 8 bytes): with stored lines,
    /// `CompactETag.reservedHigh` in the top half and their length in the bottom half, and the
    /// entity tag, if any, among the lines; without, the compact entity tag written first, or 0
    /// for none.
    private let word: UInt64

    /// The bytes `count` bytes at `start`, which `owner` holds and never changes, with `word`
    /// as `layout(fields:)` made it.
    package init(owner: AnyObject, start: UnsafePointer<UInt8>, count: Int, word: UInt64) {
        self.owner = owner
        self.start = start
        self.count = count
        self.word = word
    }

    /// Stores `fields` (written in order, each `Name: value`) and `body` in a block of their own.
    package init(fields: [HTTPHeaderField], body: [UInt8]) {
        let (word, lines) = Self.layout(fields: fields)
        let block = PrebuiltBlock.make(lines: lines, body: body)
        self.init(owner: block, start: block.start, count: lines.count + body.count, word: word)
    }

    /// What `fields` become: when they are only an `ETag` of the compact form (or nothing), the
    /// tag in the word and no lines; otherwise the lines (the tag among them, as text) and the
    /// word marking their length.
    package static func layout(fields: [HTTPHeaderField]) -> (word: UInt64, lines: [UInt8]) {
        var lines = fields[...]
        var tag: CompactETag?
        if let first = lines.first, first.name == "ETag", let compact = CompactETag(quoted: first.value) {
            tag = compact
            lines = lines.dropFirst()
        }
        guard !lines.isEmpty else { return (tag?.value ?? 0, []) }
        if tag != nil { lines = fields[...] }
        var size = 0
        for field in lines { size += field.name.utf8.count + field.value.utf8.count + 4 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for field in lines {
            bytes.appendText(field.name)
            bytes.appendText(": ")
            bytes.appendText(field.value)
            bytes.appendText("\r\n")
        }
        return (CompactETag.reservedHigh << 32 | UInt64(UInt32(bytes.count)), bytes)
    }

    /// The compact tag written before the lines, if there is one.
    @inline(__always)
    private var compactETag: CompactETag? { linesCount == 0 ? CompactETag(value: word) : nil }

    /// Where the body starts among the stored bytes: the stored lines' length.
    @inline(__always)
    private var linesCount: Int { word >> 32 == CompactETag.reservedHigh ? Int(word & 0xFFFF_FFFF) : 0 }

    /// Where the body starts among the stored bytes (`PrebuiltResponse.count` holds them all).
    @inline(__always)
    package var bodyStart: Int { linesCount }

    package var bodyCount: Int { count - bodyStart }

    /// The address of the stored bytes (a test's evidence that two answers share them).
    package var storageAddress: UnsafePointer<UInt8> { start }

    /// Calls `body` with the stored bytes (lines, then the body), kept alive meanwhile.
    @inline(__always)
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        defer { withExtendedLifetime(owner) {} }
        return try body(UnsafeBufferPointer(start: start, count: count))
    }

    /// Calls `body` with the body's bytes, kept alive meanwhile.
    @inline(__always)
    package func withBody<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        defer { withExtendedLifetime(owner) {} }
        return try body(UnsafeBufferPointer(start: start + bodyStart, count: bodyCount))
    }

    /// At least the bytes `writeHead(at:)` writes.
    @inline(__always)
    package var headBound: Int { Self.etagLineCount + linesCount + Self.contentLengthLineBound }

    private static let etagLineCount = 6 + CompactETag.quotedCount + 2
    private static let contentLengthLineBound = 16 + 20 + 4

    /// Writes the head at `start`: the ETag line, the stored lines, `Content-Length` and the blank
    /// line ending the head; returns the bytes written (at most `headBound`).
    @inline(__always)
    package func writeHead(at destination: UnsafeMutablePointer<UInt8>) -> Int {
        var head = ByteCursor(destination)
        let linesCount = self.linesCount
        if let compactETag {
            head.writeLiteral("ETag: ")
            compactETag.write(at: head.position)
            head.skip(CompactETag.quotedCount)
            head.writeLiteral("\r\n")
        } else if linesCount > 0 {
            withExtendedLifetime(owner) { head.write(start, count: linesCount) }
        }
        head.writeLiteral("Content-Length: ")
        head.writeDecimal(bodyCount)
        head.writeLiteral("\r\n\r\n")
        return head.position - destination
    }

    /// The head as `writeHead(at:)` writes it.
    package var head: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: headBound) { buffer, count in
            count = writeHead(at: buffer.baseAddress!)
        }
    }

    /// A copy of the stored bytes, lines and body (tests, comparisons).
    package var bytes: [UInt8] { withBytes { Array($0) } }

    /// A copy of the body (for the paths that transform it: batches, fleet tiers).
    package var body: [UInt8] { withBody { Array($0) } }

    /// The entity tag, quoted, from the compact form or the first stored `ETag` line; nil if none.
    package var etag: String? { compactETag?.quoted ?? lineFields.first { $0.name == "ETag" }?.value }

    /// The value of the first head line called `name` (ASCII case-insensitive), or nil.
    package func value(of name: String) -> String? {
        if name.equalsIgnoringASCIICase("ETag") { return etag }
        if name.equalsIgnoringASCIICase("Content-Length") { return String(bodyCount) }
        return lineFields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Calls `body` with the name and value bytes of each field the stored part names, in the
    /// order `etag` then `storedFields` give them (an HTTP/2 header list): the entity tag first,
    /// then the stored lines other than `ETag`; `Content-Length` is the caller's. Nothing is
    /// allocated, nothing decoded; the bytes are valid only during each call.
    package func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        if let compactETag {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CompactETag.quotedCount) { quoted in
                compactETag.write(at: quoted.baseAddress!)
                Self.etagName.withUTF8Buffer { body($0, UnsafeBufferPointer(quoted)) }
            }
            return
        }
        let linesCount = self.linesCount
        guard linesCount > 0 else { return }
        withBytes { bytes in
            let lines = UnsafeBufferPointer(rebasing: bytes[..<linesCount])
            var tagged = false
            Self.forEachLine(in: lines) { name, value in
                guard !tagged, Self.isETag(name) else { return }
                tagged = true
                body(name, value)
            }
            Self.forEachLine(in: lines) { name, value in
                if !Self.isETag(name) { body(name, value) }
            }
        }
    }

    private static let etagName: StaticString = "ETag"

    /// Whether a stored line's name is `ETag` as the lines spell it (exactly, as `etag` looks).
    private static func isETag(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count == 4 && name[0] == UInt8(ascii: "E") && name[1] == UInt8(ascii: "T") && name[2] == UInt8(ascii: "a")
            && name[3] == UInt8(ascii: "g")
    }

    /// Each `Name: value\r\n` line of `lines`, as `lineFields` reads them (a line without a colon
    /// is skipped).
    private static func forEachLine(
        in lines: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void
    ) {
        var start = 0
        while start < lines.count {
            var end = start
            while end < lines.count && lines[end] != 10 { end += 1 }
            var colon = start
            while colon < end && lines[colon] != 58 { colon += 1 }
            // The value after ": ", without the CR.
            if colon < end, colon + 2 <= end - 1 {
                body(
                    UnsafeBufferPointer(rebasing: lines[start..<colon]),
                    UnsafeBufferPointer(rebasing: lines[(colon + 2)..<(end - 1)]))
            }
            start = end + 1
        }
    }

    /// The stored lines other than ETag, as fields (a tag header for the CDN in front, say).
    package var storedFields: [HTTPHeaderField] { lineFields.filter { $0.name != "ETag" } }

    /// Every stored line, as a field.
    private var lineFields: [HTTPHeaderField] {
        withBytes { bytes in
            bytes[..<bodyStart].split(separator: 10).compactMap { line in
                guard let colon = line.firstIndex(of: 58) else { return nil }
                let value = line[(colon + 2)...].dropLast()  // the CR
                return HTTPHeaderField(
                    name: String(decoding: UnsafeBufferPointer(rebasing: bytes[line.startIndex..<colon]), as: UTF8.self),
                    value: String(decoding: UnsafeBufferPointer(rebasing: value), as: UTF8.self))
            }
        }
    }
}

/// Stored lines and a body in one allocation of exactly their size: a prebuilt answer that no
/// cache entry holds (an entry's gzip form, say).
package final class PrebuiltBlock: ManagedBuffer<Void, UInt8> {
    /// A block holding `lines` then `body` (their count is the `PrebuiltResponse`'s to keep).
    static func make(lines: [UInt8], body: [UInt8]) -> PrebuiltBlock {
        let block = unsafeDowncast(create(minimumCapacity: lines.count + body.count) { _ in }, to: PrebuiltBlock.self)
        block.withUnsafeMutablePointerToElements { fill($0, lines: lines, body: body) }
        return block
    }

    /// Writes `lines` then `body` at `destination` (uninitialised bytes: trivial, so updated).
    package static func fill(_ destination: UnsafeMutablePointer<UInt8>, lines: [UInt8], body: [UInt8]) {
        func copy(_ part: [UInt8], to at: UnsafeMutablePointer<UInt8>) {
            part.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { at.update(from: base, count: source.count) }
            }
        }
        copy(lines, to: destination)
        copy(body, to: destination + lines.count)
    }

    /// The first stored byte.
    var start: UnsafePointer<UInt8> { withUnsafeMutablePointerToElements { UnsafePointer($0) } }
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

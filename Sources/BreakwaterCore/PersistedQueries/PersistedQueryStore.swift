// The persisted-query registry's file, so that registrations survive a restart
// (`persisted_queries.store`, README.md "Configuration", docs/OPERATING.md "Sizing").
// Registrations are appended as they happen and read back in file order at startup, a chunk at a
// time; the registry rewrites the file with the documents it still holds (`compact`) when it has
// grown past its bound (`PersistedQueryStoreCompactionPolicy`).
//
// File format: a header line, then one record per registration:
//
//     breakwater persisted-query store 1\n
//     <64 lower-case hex digits: the SHA-256> <the document's length in bytes, decimal>\n
//     <the document, UTF-8>\n
//
// The header is how a file that is not a registry store (a `store` path pointing at the wrong file)
// is told apart: such a file is refused at start and never written to. Files of the first format,
// records without the header, still load: the store migrates them at start by rewriting them with
// the header in front (written beside, synced and renamed over, as compaction does).
//
// The length, not a delimiter, ends the document, so documents may hold newlines; the final
// newline lets a reader tell a complete record from one torn by a crash in the middle of a write.
// A damaged record (a flipped byte, a bad length, text that is not UTF-8) is skipped: the loader
// resumes at the next offset that starts a good record, so one bad byte loses one record, not
// every record after it (a document damaged into other valid UTF-8 is caught by the registry,
// which drops records whose document does not hash to their digest). A tail after the last good
// record is cut off, so that later appends follow good data. A digest may appear more than once
// (evicted, then registered again); the later record is the more recent.

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only file of persisted-query registrations that tolerates a torn tail.
///
/// Thread-safe: appends and compaction are serialised by a lock of the store's own, so every
/// record reaches the file whole and in one `write`. Call `load()` once before appending, so that
/// a torn tail from a crash is cut off first.
package final class PersistedQueryStore: Sendable {
    private struct State {
        var descriptor: Int32
        /// The end of the last complete record: where a failed append is cut back to.
        var size: Int
        /// Good records in the file (passed-over ones included).
        var records = 0
        var droppedBytes = 0
        var skippedRecords = 0
        var loadBufferBytes = 0
    }

    /// The first line of every store file: what tells a registry store from any other file.
    package static let header = Array("breakwater persisted-query store 1\n".utf8)

    package let path: String
    private let state: Mutex<State>

    /// Opens the file at `path`, creating it when missing; its folder must exist (a missing one is
    /// far more often a typo than a wish, so none is created). Nothing is written until `load()`
    /// has checked what the file holds.
    package init(path: String) throws(PersistedQueryStoreError) {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PersistedQueryStoreError(path: path, operation: "open", errorNumber: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw PersistedQueryStoreError(path: path, operation: "read", errorNumber: code)
        }
        state = Mutex(State(descriptor: descriptor, size: Int(status.st_size)))
    }

    deinit {
        state.withLock { _ = close($0.descriptor) }
    }

    /// The file's size in bytes: the header and every record appended or compacted into it.
    package var size: Int { state.withLock { $0.size } }

    /// How many records the file holds, counted by `load` and kept up by appends and compaction.
    package var records: Int { state.withLock { $0.records } }

    /// The largest read buffer the last `load` used: a chunk, or the longest record it read when
    /// that is longer, never the whole file.
    package var loadBufferBytes: Int { state.withLock { $0.loadBufferBytes } }

    /// How many bytes the last `load()` found outside any good record: damaged records skipped
    /// in the middle plus a torn or damaged tail cut off (0 when the file was whole).
    package var droppedBytes: Int { state.withLock { $0.droppedBytes } }

    /// How many damaged stretches the last `load()` skipped with good records after them; they stay
    /// in the file until the next `compact`.
    package var skippedRecords: Int { state.withLock { $0.skippedRecords } }

    /// Every good record in file order, collected into an array (tools and tests; the registry
    /// streams them with `load(maxDocumentBytes:_:)`).
    package func load() throws(PersistedQueryStoreError) -> [(SHA256Digest, String)] {
        var records: [(SHA256Digest, String)] = []
        try load { records.append(($0, $1)) }
        return records
    }

    /// Reads the file in chunks and hands `body` every good record in file order, so that a large
    /// file never sits in memory whole: the buffer holds a chunk or one record, whichever is
    /// larger. A record whose document is longer than `maxDocumentBytes` is passed over unread
    /// (the registry could not hold it), its end still checked so that it is not taken for damage.
    ///
    /// Damaged records are skipped and counted (`skippedRecords`, `droppedBytes`); a torn or
    /// damaged tail is cut off the file. A new or empty file gets the header; a file of the first
    /// format (no header) is rewritten with it; a file that is not a registry store is refused with
    /// `PersistedQueryStoreError.notAStore` and left untouched. `body` runs under the store's lock:
    /// it must not call the store.
    package func load(
        maxDocumentBytes: Int = .max,
        _ body: (SHA256Digest, String) -> Void
    ) throws(PersistedQueryStoreError) {
        try state.withLock { (state) throws(PersistedQueryStoreError) in
            var reader = try FileReader(descriptor: state.descriptor, path: path)
            try reader.cover(0, min(reader.fileSize, FileReader.chunkSize))
            let format = reader.withWindow { window, _ in Self.format(window) }
            switch format {
            case .foreign:
                throw PersistedQueryStoreError.notAStore(path)
            case .empty:
                // New, or torn while its header was written: start it again.
                try truncate(state.descriptor, to: 0)
                try writeAll(Self.header, to: state.descriptor, path: path)
                state.size = Self.header.count
                state.records = 0
                state.droppedBytes = reader.fileSize
                state.skippedRecords = 0
            case .current, .firstFormat:
                let start = format == .current ? Self.header.count : 0
                let scan = try Self.scan(&reader, from: start, maxDocumentBytes: maxDocumentBytes, body)
                if format == .firstFormat {
                    try replace(&state) { (descriptor) throws(PersistedQueryStoreError) -> Int in
                        try writeAll(Self.header, to: descriptor, path: temporaryPath)
                        try copy(&reader, upTo: scan.goodLength, to: descriptor)
                        return Self.header.count + scan.goodLength
                    }
                } else {
                    if scan.goodLength < reader.fileSize { try truncate(state.descriptor, to: scan.goodLength) }
                    state.size = scan.goodLength
                }
                state.records = scan.records
                state.droppedBytes = scan.droppedBytes + reader.fileSize - scan.goodLength
                state.skippedRecords = scan.skippedRecords
            }
            state.loadBufferBytes = reader.bufferBytes
        }
    }

    /// Appends one record in a single `write`; a partial write is cut back off before throwing,
    /// so the file never keeps half a record in front of later ones.
    package func append(_ digest: SHA256Digest, _ document: String) throws(PersistedQueryStoreError) {
        var record: [UInt8] = []
        Self.encode(digest, document, into: &record)
        try state.withLock { (state) throws(PersistedQueryStoreError) in
            var written: Int
            repeat {
                written = record.withUnsafeBytes { write(state.descriptor, $0.baseAddress, $0.count) }
            } while written < 0 && errno == EINTR
            guard written == record.count else {
                let code = written < 0 ? errno : ENOSPC
                _ = ftruncate(state.descriptor, off_t(state.size))
                throw PersistedQueryStoreError(path: path, operation: "write", errorNumber: code)
            }
            state.size += written
            state.records += 1
        }
    }

    /// Replaces the file's records with `entries`, after the header: written to a new file, synced,
    /// then renamed over the old one, so a crash leaves either the old file or the new one.
    package func compact(_ entries: [(SHA256Digest, String)]) throws(PersistedQueryStoreError) {
        try state.withLock { (state) throws(PersistedQueryStoreError) in
            try replace(&state) { (descriptor) throws(PersistedQueryStoreError) -> Int in
                var size = 0
                var buffer = Self.header
                buffer.reserveCapacity(1 << 20)
                for (digest, document) in entries {
                    Self.encode(digest, document, into: &buffer)
                    if buffer.count >= 1 << 20 {
                        try writeAll(buffer, to: descriptor, path: temporaryPath)
                        size += buffer.count
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
                try writeAll(buffer, to: descriptor, path: temporaryPath)
                return size + buffer.count
            }
            state.records = entries.count
            state.skippedRecords = 0
        }
    }

    private var temporaryPath: String { path + ".compacting" }

    /// Writes a new file beside the store with `write` (which returns the bytes it wrote), syncs
    /// it and renames it over the store; the store's descriptor then names the new file.
    private func replace(
        _ state: inout State,
        with write: (Int32) throws(PersistedQueryStoreError) -> Int
    ) throws(PersistedQueryStoreError) {
        let descriptor = open(temporaryPath, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PersistedQueryStoreError(path: temporaryPath, operation: "open", errorNumber: errno)
        }
        let size: Int
        do throws(PersistedQueryStoreError) {
            size = try write(descriptor)
            guard fsync(descriptor) == 0 else {
                throw PersistedQueryStoreError(path: temporaryPath, operation: "sync", errorNumber: errno)
            }
            guard rename(temporaryPath, path) == 0 else {
                throw PersistedQueryStoreError(path: path, operation: "rename", errorNumber: errno)
            }
        } catch {
            close(descriptor)
            unlink(temporaryPath)
            throw error
        }
        // The new descriptor already names the renamed file: no reopen that could fail.
        close(state.descriptor)
        state.descriptor = descriptor
        state.size = size
    }

    // MARK: - Bytes

    /// The size on disk of the record of a document of `documentBytes` UTF-8 bytes.
    package static func recordSize(documentBytes: Int) -> Int {
        var digits = 1
        var rest = documentBytes
        while rest >= 10 {
            digits += 1
            rest /= 10
        }
        return 64 + 1 + digits + 1 + documentBytes + 1
    }

    /// Appends the record for one registration to `buffer`.
    private static func encode(_ digest: SHA256Digest, _ document: String, into buffer: inout [UInt8]) {
        let length = document.utf8.count
        buffer.reserveCapacity(buffer.count + 64 + 22 + length)
        buffer.append(contentsOf: digest.hex.utf8)
        buffer.append(UInt8(ascii: " "))
        buffer.append(contentsOf: String(length).utf8)
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: document.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// What a file holds, judged by its first bytes.
    private enum Format {
        /// Nothing, or a prefix of the header (a crash while it was written).
        case empty
        /// The header, then records.
        case current
        /// Records without a header, as the first format wrote them: a record header first.
        case firstFormat
        /// Anything else: not a registry store.
        case foreign
    }

    private static func format(_ bytes: UnsafeBufferPointer<UInt8>) -> Format {
        if bytes.count < header.count, header.starts(with: bytes) { return .empty }
        if bytes.starts(with: header) { return .current }
        // A first-format record starts with 64 lower-case hex digits and a space; even if its
        // document is damaged, that much of another kind of file is not a coincidence.
        if bytes.count >= 65, bytes[64] == UInt8(ascii: " "), bytes[..<64].allSatisfy({ lowerHexValue($0) != nil }) {
            return .firstFormat
        }
        return .foreign
    }

    /// What a scan found: how many good records, where the last one ends, and the damage skipped
    /// before it.
    private struct Scan {
        var records = 0
        /// The offset just past the last good record (the start, when there is none).
        var goodLength: Int
        /// Bytes skipped between good records.
        var droppedBytes = 0
        /// Damaged stretches with a good record after them.
        var skippedRecords = 0
    }

    /// Hands `body` the good records from `start` on. A damaged record is skipped by trying each
    /// following offset until one starts a good record; damage after the last good record is left
    /// out of `goodLength`, for the caller to cut off.
    private static func scan(
        _ reader: inout FileReader,
        from start: Int,
        maxDocumentBytes: Int,
        _ body: (SHA256Digest, String) -> Void
    ) throws(PersistedQueryStoreError) -> Scan {
        var scan = Scan(goodLength: start)
        var position = start
        while position < reader.fileSize {
            if let end = try record(&reader, at: position, maxDocumentBytes: maxDocumentBytes, body) {
                if position > scan.goodLength {
                    scan.droppedBytes += position - scan.goodLength
                    scan.skippedRecords += 1
                }
                scan.records += 1
                position = end
                scan.goodLength = end
            } else {
                // Damage can fall on a newline, so every offset is a candidate, not only line
                // starts; a candidate that is not a record fails within its first bytes.
                position += 1
            }
        }
        return scan
    }

    /// The longest record header: 64 hex digits, a space, eighteen digits, a newline.
    private static let longestRecordHeader = 84

    /// The offset just past the record starting at `start`, after handing it to `body` (unless its
    /// document is longer than `maxDocumentBytes`), or nil when it is incomplete or malformed.
    private static func record(
        _ reader: inout FileReader,
        at start: Int,
        maxDocumentBytes: Int,
        _ body: (SHA256Digest, String) -> Void
    ) throws(PersistedQueryStoreError) -> Int? {
        // The shortest record: 64 hex digits, a space, one digit, a newline, an empty document's newline.
        guard reader.fileSize - start >= 67 else { return nil }
        try reader.cover(start, start + longestRecordHeader)
        guard
            let (digest, documentStart, length) = reader.withWindow({ window, base in
                recordHeader(in: window, at: start - base).map { ($0, base + $1, $2) }
            })
        else { return nil }
        let end = documentStart + length + 1
        guard length < reader.fileSize - documentStart else { return nil }
        guard length <= maxDocumentBytes else {
            try reader.cover(end - 1, end)
            return reader.withWindow { window, base in window[end - 1 - base] == UInt8(ascii: "\n") } ? end : nil
        }
        try reader.cover(start, end)
        let document = reader.withWindow { window, base -> String? in
            guard window[end - 1 - base] == UInt8(ascii: "\n") else { return nil }
            return String(
                validating: UnsafeBufferPointer(rebasing: window[documentStart - base..<end - 1 - base]), as: UTF8.self)
        }
        guard let document else { return nil }
        body(digest, document)
        return end
    }

    /// The digest, the window offset where the document starts and its length, of the record header
    /// at `start` in `window` (which holds the file from `start` up to the longest header or the
    /// file's end, whichever comes first); nil when it is malformed.
    private static func recordHeader(
        in window: UnsafeBufferPointer<UInt8>,
        at start: Int
    ) -> (SHA256Digest, documentStart: Int, length: Int)? {
        guard window.count - start >= 66 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let isHex = withUnsafeMutableBytes(of: &words) { digest -> Bool in
            for i in 0..<32 {
                guard let high = lowerHexValue(window[start + 2 * i]),
                    let low = lowerHexValue(window[start + 2 * i + 1])
                else { return false }
                digest[i] = high << 4 | low
            }
            return true
        }
        guard isHex, window[start + 64] == UInt8(ascii: " ") else { return nil }
        var position = start + 65
        var length = 0
        // Eighteen digits cannot overflow an Int; no real document comes near that.
        while position < window.count, position - start - 65 < 18,
            case let digit = window[position], digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9")
        {
            length = length * 10 + Int(digit - UInt8(ascii: "0"))
            position += 1
        }
        guard position > start + 65, position < window.count, window[position] == UInt8(ascii: "\n") else { return nil }
        return (SHA256Digest(words: words), position + 1, length)
    }

    /// The value of a lower-case hex digit: the store writes only those, so anything else is damage.
    private static func lowerHexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    // MARK: - System calls

    private func truncate(_ descriptor: Int32, to length: Int) throws(PersistedQueryStoreError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw PersistedQueryStoreError(path: path, operation: "truncate", errorNumber: errno)
        }
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(PersistedQueryStoreError) {
        var failure: PersistedQueryStoreError?
        bytes.withUnsafeBytes { bytes in
            do throws(PersistedQueryStoreError) {
                try writeAll(bytes, to: descriptor, path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    private func writeAll(
        _ bytes: UnsafeRawBufferPointer,
        to descriptor: Int32,
        path: String
    ) throws(PersistedQueryStoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw PersistedQueryStoreError(
                    path: path, operation: "write", errorNumber: written < 0 ? errno : ENOSPC)
            }
            offset += written
        }
    }

    /// Writes the store's bytes before `end` to `descriptor` (the file being migrated), a chunk at
    /// a time.
    private func copy(_ reader: inout FileReader, upTo end: Int, to descriptor: Int32) throws(PersistedQueryStoreError)
    {
        var offset = 0
        while offset < end {
            let chunkEnd = min(end, offset + FileReader.chunkSize)
            try reader.cover(offset, chunkEnd)
            let failure = reader.withWindow { window, base -> PersistedQueryStoreError? in
                let chunk = UnsafeBufferPointer(rebasing: window[(offset - base)..<(chunkEnd - base)])
                do throws(PersistedQueryStoreError) {
                    try writeAll(UnsafeRawBufferPointer(chunk), to: descriptor, path: temporaryPath)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            offset = chunkEnd
        }
    }
}

/// A window onto the store's file, read with `pread` a chunk at a time: what lets `load` scan a
/// file of any size in a buffer of a chunk or one record, whichever is larger.
private struct FileReader {
    static let chunkSize = 1 << 20

    private let descriptor: Int32
    private let path: String
    /// The file's size when the reader was made (less, if the file turned out shorter).
    private(set) var fileSize: Int
    private var buffer: [UInt8] = []
    /// The buffer's size: the most the reader has held at once.
    var bufferBytes: Int { buffer.count }
    /// The file offset of `buffer[0]`.
    private var windowStart = 0
    /// How many bytes of `buffer` hold the file's.
    private var windowCount = 0

    init(descriptor: Int32, path: String) throws(PersistedQueryStoreError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw PersistedQueryStoreError(path: path, operation: "read", errorNumber: errno)
        }
        self.descriptor = descriptor
        self.path = path
        fileSize = Int(status.st_size)
    }

    /// Makes the window hold the file's bytes from `start` to `end` (or to the file's end, when
    /// sooner), reading a chunk or more from `start` when they are not all there yet.
    mutating func cover(_ start: Int, _ end: Int) throws(PersistedQueryStoreError) {
        let end = min(end, fileSize)
        guard start < windowStart || end > windowStart + windowCount else { return }
        let wanted = min(max(end - start, Self.chunkSize), fileSize - start)
        if buffer.count < wanted { buffer = [UInt8](repeating: 0, count: wanted) }
        var count = 0
        var failure: Int32 = 0
        buffer.withUnsafeMutableBytes { buffer in
            while count < wanted {
                let got = pread(descriptor, buffer.baseAddress! + count, wanted - count, off_t(start + count))
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = errno }
                if got <= 0 { break }
                count += got
            }
        }
        guard failure == 0 else { throw PersistedQueryStoreError(path: path, operation: "read", errorNumber: failure) }
        // A file that shrank under us ends here; what was read is still scanned.
        if count < wanted { fileSize = start + count }
        windowStart = start
        windowCount = count
    }

    /// Runs `body` with the window's bytes and the file offset of its first byte.
    func withWindow<Result>(_ body: (UnsafeBufferPointer<UInt8>, Int) -> Result) -> Result {
        buffer.withUnsafeBufferPointer { buffer in
            body(UnsafeBufferPointer(rebasing: buffer[..<windowCount]), windowStart)
        }
    }
}

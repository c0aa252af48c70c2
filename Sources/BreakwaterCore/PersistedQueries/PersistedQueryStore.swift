// The persisted-query registry's file, so that registrations survive a restart
// (`persisted_queries.store`, README.md "Configuration"). Registrations are appended as they happen and read
// back in file order at startup.
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
        var droppedBytes = 0
        var skippedRecords = 0
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

    /// How many bytes the last `load()` found outside any good record: damaged records skipped
    /// in the middle plus a torn or damaged tail cut off (0 when the file was whole).
    package var droppedBytes: Int { state.withLock { $0.droppedBytes } }

    /// How many damaged stretches the last `load()` skipped with good records after them; they stay
    /// in the file until the next `compact`.
    package var skippedRecords: Int { state.withLock { $0.skippedRecords } }

    /// Every good record in file order. Damaged records are skipped and counted (`skippedRecords`,
    /// `droppedBytes`); a torn or damaged tail is cut off the file. A new or empty file gets the
    /// header; a file of the first format (no header) is rewritten with it; a file that is not a
    /// registry store is refused with `PersistedQueryStoreError.notAStore` and left untouched.
    package func load() throws(PersistedQueryStoreError) -> [(SHA256Digest, String)] {
        try state.withLock { (state) throws(PersistedQueryStoreError) -> [(SHA256Digest, String)] in
            // One read of the whole file and a scan of its bytes: 100k records load in well
            // under a second, where splitting the file into lines would not.
            let bytes = try readAll(state.descriptor)
            let format = bytes.withUnsafeBufferPointer(Self.format)
            switch format {
            case .foreign:
                throw PersistedQueryStoreError.notAStore(path)
            case .empty:
                // New, or torn while its header was written: start it again.
                try truncate(state.descriptor, to: 0)
                try writeAll(Self.header, to: state.descriptor, path: path)
                state.size = Self.header.count
                state.droppedBytes = bytes.count
                state.skippedRecords = 0
                return []
            case .current, .firstFormat:
                let start = format == .current ? Self.header.count : 0
                let scan = bytes.withUnsafeBufferPointer { Self.scan($0, from: start) }
                if format == .firstFormat {
                    try replace(&state) { (descriptor) throws(PersistedQueryStoreError) -> Int in
                        try writeAll(Self.header + bytes[..<scan.goodLength], to: descriptor, path: temporaryPath)
                        return Self.header.count + scan.goodLength
                    }
                } else {
                    if scan.goodLength < bytes.count { try truncate(state.descriptor, to: scan.goodLength) }
                    state.size = scan.goodLength
                }
                state.droppedBytes = scan.droppedBytes + bytes.count - scan.goodLength
                state.skippedRecords = scan.skippedRecords
                return scan.records
            }
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

    /// What a scan found: the good records, where the last one ends, and the damage skipped before it.
    private struct Scan {
        var records: [(SHA256Digest, String)] = []
        /// The offset just past the last good record (the start, when there is none).
        var goodLength: Int
        /// Bytes skipped between good records.
        var droppedBytes = 0
        /// Damaged stretches with a good record after them.
        var skippedRecords = 0
    }

    /// The good records from `start` on. A damaged record is skipped by trying each following
    /// offset until one starts a good record; damage after the last good record is left out of
    /// `goodLength`, for the caller to cut off.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Scan {
        var scan = Scan(goodLength: start)
        var position = start
        while position < bytes.count {
            if let (digest, document, end) = record(in: bytes, at: position) {
                if position > scan.goodLength {
                    scan.droppedBytes += position - scan.goodLength
                    scan.skippedRecords += 1
                }
                scan.records.append((digest, document))
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

    /// The record starting at `start` and the offset just past it, or nil when it is incomplete or
    /// malformed.
    private static func record(
        in bytes: UnsafeBufferPointer<UInt8>,
        at start: Int
    ) -> (SHA256Digest, String, Int)? {
        // The shortest header: 64 hex digits, a space, one digit, a newline.
        guard bytes.count - start >= 67 else { return nil }
        var digestBytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 {
            guard let high = lowerHexValue(bytes[start + 2 * i]), let low = lowerHexValue(bytes[start + 2 * i + 1])
            else { return nil }
            digestBytes[i] = high << 4 | low
        }
        guard bytes[start + 64] == UInt8(ascii: " ") else { return nil }
        var position = start + 65
        var length = 0
        // Eighteen digits cannot overflow an Int; no real document comes near that.
        while position < bytes.count, position - start - 65 < 18,
            case let digit = bytes[position], digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9")
        {
            length = length * 10 + Int(digit - UInt8(ascii: "0"))
            position += 1
        }
        guard position > start + 65, position < bytes.count, bytes[position] == UInt8(ascii: "\n") else { return nil }
        let documentStart = position + 1
        guard length < bytes.count - documentStart, bytes[documentStart + length] == UInt8(ascii: "\n") else {
            return nil
        }
        let documentBytes = UnsafeBufferPointer(rebasing: bytes[documentStart..<documentStart + length])
        guard let document = String(validating: documentBytes, as: UTF8.self) else { return nil }
        return (SHA256Digest(bytes: digestBytes), document, documentStart + length + 1)
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

    private func readAll(_ descriptor: Int32) throws(PersistedQueryStoreError) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw PersistedQueryStoreError(path: path, operation: "read", errorNumber: errno)
        }
        let size = Int(status.st_size)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let got = pread(descriptor, buffer.baseAddress! + count, size - count, off_t(count))
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = errno }
                // A file that shrank under us ends here; what was read is still scanned.
                if got <= 0 { break }
                count += got
            }
        }
        guard failure == 0 else { throw PersistedQueryStoreError(path: path, operation: "read", errorNumber: failure) }
        return bytes
    }

    private func truncate(_ descriptor: Int32, to length: Int) throws(PersistedQueryStoreError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw PersistedQueryStoreError(path: path, operation: "truncate", errorNumber: errno)
        }
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(PersistedQueryStoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw PersistedQueryStoreError(
                    path: path, operation: "write", errorNumber: written < 0 ? errno : ENOSPC)
            }
            offset += written
        }
    }
}

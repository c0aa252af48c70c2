// A connection's unsent bytes: answer heads and small bodies copied into one reused block,
// large bodies referenced as they are (a cached body is never copied), written with writev.

import BreakwaterCore
import Foundation

/// Bytes waiting for the socket, in order.
struct OutputQueue {
    /// Bodies at least this large are referenced instead of copied.
    static let referenceThreshold = 4096

    private struct Chunk {
        var bytes: [UInt8]
        /// Built here (heads, small bodies) and still open for more; a referenced body is not.
        var isOwned: Bool
        /// A referenced prebuilt answer, whose body is sent instead of `bytes`.
        var prebuilt: PrebuiltResponse?

        init(bytes: [UInt8], isOwned: Bool) {
            self.bytes = bytes
            self.isOwned = isOwned
        }

        init(prebuilt: PrebuiltResponse) {
            bytes = []
            isOwned = false
            self.prebuilt = prebuilt
        }

        var count: Int { prebuilt?.bodyCount ?? bytes.count }

        /// Calls `body` with the bytes to send (kept alive meanwhile).
        @inline(__always)
        func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            if let prebuilt { return prebuilt.withBody { body(UnsafeRawBufferPointer($0)) } }
            return bytes.withUnsafeBytes(body)
        }
    }

    private var chunks: [Chunk] = []
    /// Bytes of `chunks[0]` already written.
    private var offset = 0
    /// Storage of a written owned chunk, kept for the next one (no allocation per answer).
    private var spare: [UInt8] = []
    private(set) var unsentBytes = 0
    /// Where heads are serialised before their one copy into the open chunk.
    private let scratch = Scratch(capacity: 4096)

    init() {
        spare.reserveCapacity(4096)
        chunks.reserveCapacity(8)
    }

    /// A connection's block of raw memory for serialising heads (freed with the connection).
    private final class Scratch {
        let capacity: Int
        let start: UnsafeMutablePointer<UInt8>

        init(capacity: Int) {
            self.capacity = capacity
            start = .allocate(capacity: capacity)
        }

        deinit { start.deallocate() }
    }

    var isEmpty: Bool { unsentBytes == 0 }

    /// Appends the bytes `build` adds to the open owned chunk.
    mutating func append(_ build: (inout [UInt8]) -> Void) {
        if chunks.last?.isOwned != true {
            chunks.append(Chunk(bytes: spare, isOwned: true))
            spare = []
        }
        let last = chunks.count - 1
        let before = chunks[last].bytes.count
        build(&chunks[last].bytes)
        unsentBytes += chunks[last].bytes.count - before
    }

    /// Appends what `write` writes, at most `bound` bytes, to the open owned chunk: written
    /// through a cursor into the connection's scratch block (or a temporary one when `bound` is
    /// larger), then copied once.
    mutating func append(bound: Int, _ write: (inout HeadOutput) -> Void) {
        if bound <= scratch.capacity {
            appendWritten(into: scratch.start, write)
        } else {
            let block = UnsafeMutablePointer<UInt8>.allocate(capacity: bound)
            defer { block.deallocate() }
            appendWritten(into: block, write)
        }
    }

    private mutating func appendWritten(into block: UnsafeMutablePointer<UInt8>, _ write: (inout HeadOutput) -> Void) {
        var cursor = HeadOutput(block)
        write(&cursor)
        let written = UnsafeBufferPointer(start: block, count: cursor.position - block)
        append { $0.append(contentsOf: written) }
    }

    /// Appends a body: copied into the open chunk when small, referenced when large.
    mutating func append(body: [UInt8]) {
        guard !body.isEmpty else { return }
        if body.count < Self.referenceThreshold {
            append { $0.append(contentsOf: body) }
        } else {
            chunks.append(Chunk(bytes: body, isOwned: false))
            unsentBytes += body.count
        }
    }

    /// Appends a prebuilt answer's body: copied into the open chunk when small, referenced (in the
    /// cache entry that holds it) when large. (`append(body:)`'s twin on purpose: one function
    /// taking the copy as a closure cost a hit 57 instructions more, `bench/callgrind.sh`.)
    mutating func append(bodyOf prebuilt: PrebuiltResponse) {
        let count = prebuilt.bodyCount
        guard count > 0 else { return }
        if count < Self.referenceThreshold {
            append { open in prebuilt.withBody { open.append(contentsOf: $0) } }
        } else {
            chunks.append(Chunk(prebuilt: prebuilt))
            unsentBytes += count
        }
    }

    /// Writes as much as the socket takes in one writev.
    mutating func write(to transport: Transport) throws(SystemError) -> SocketIO {
        guard unsentBytes > 0 else { return .done(0) }
        let count = min(64, chunks.count)
        let result = try withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) {
            vectors throws(SystemError) -> SocketIO in
            var used = 0
            for index in 0..<count {
                let start = index == 0 ? offset : 0
                guard chunks[index].count > start else { continue }
                // The arrays and entries are held by `chunks` and not mutated during the write:
                // their storage stays where it is until writev returns.
                chunks[index].withBytes { raw in
                    vectors[used] = iovec(
                        iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + start),
                        iov_len: raw.count - start)
                }
                used += 1
            }
            return try transport.writev(UnsafeBufferPointer(rebasing: vectors[0..<used]))
        }
        if case .done(let written) = result { consume(written) }
        return result
    }

    private mutating func consume(_ written: Int) {
        unsentBytes -= written
        offset += written
        while let count = chunks.first?.count, offset >= count {
            offset -= count
            // Taken out of `chunks` first, so that its storage is uniquely held and emptied in
            // place: emptying a second reference to it would allocate a new buffer of the same
            // capacity (4 KiB an answer, and the heap holes it left between cache entries).
            var written = chunks.removeFirst()
            if written.isOwned && written.bytes.capacity > spare.capacity {
                written.bytes.removeAll(keepingCapacity: true)
                spare = written.bytes
            }
        }
    }
}

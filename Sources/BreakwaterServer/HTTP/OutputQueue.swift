// A connection's unsent bytes: answer heads and small bodies written straight into one reused
// block of raw memory, large bodies referenced as they are (a cached body is never copied),
// written with writev. Heads used to be written into a scratch block and then appended to an
// array, two copies and an array's bookkeeping per answer.

import BreakwaterCore
import Foundation

/// Bytes waiting for the socket, in order.
struct OutputQueue {
    /// Bodies at least this large are referenced instead of copied.
    static let referenceThreshold = 4096
    /// The block's size at first, and what an emptied block larger than `keptCapacity` shrinks
    /// back to (a connection that once queued a large burst does not keep its memory).
    static let initialCapacity = 4096
    static let keptCapacity = 64 * 1024

    /// A run of bytes to send, in order.
    private enum Piece {
        /// Bytes of `block`, by offset (the block may move when it grows).
        case owned(Range<Int>)
        /// A body held by its array.
        case body([UInt8])
        /// A prebuilt answer's body, held by its owner (a cache entry).
        case prebuilt(PrebuiltResponse)

        var count: Int {
            switch self {
            case .owned(let range): range.count
            case .body(let bytes): bytes.count
            case .prebuilt(let prebuilt): prebuilt.bodyCount
            }
        }
    }

    /// The connection's block of raw memory (freed with the connection).
    private final class Block {
        var start: UnsafeMutablePointer<UInt8>
        var capacity: Int
        /// Bytes written into the block so far (sent ones included, until it starts over).
        var end = 0

        init(capacity: Int) {
            self.capacity = capacity
            start = .allocate(capacity: capacity)
        }

        /// Replaces the memory with `capacity` bytes holding the first `end` bytes of the old.
        func reallocate(capacity: Int) {
            let new = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            new.update(from: start, count: end)
            start.deallocate()
            start = new
            self.capacity = capacity
        }

        deinit { start.deallocate() }
    }

    private var pieces: [Piece] = []
    /// Bytes of `pieces[0]` already written.
    private var offset = 0
    private let block = Block(capacity: OutputQueue.initialCapacity)
    private(set) var unsentBytes = 0

    init() {
        pieces.reserveCapacity(8)
    }

    var isEmpty: Bool { unsentBytes == 0 }

    /// The block's size now (tests: a burst's memory is given back once it is sent).
    var blockCapacity: Int { block.capacity }

    /// Appends what `write` writes, at most `bound` bytes, in place at the block's end.
    mutating func append(bound: Int, _ write: (inout HeadOutput) -> Void) {
        reserve(bound)
        let start = block.start + block.end
        var cursor = HeadOutput(start)
        write(&cursor)
        noteOwned(cursor.position - start)
    }

    /// Appends a copy of `bytes`.
    mutating func append(copying bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (block.start + block.end).update(from: base, count: bytes.count)
        noteOwned(bytes.count)
    }

    /// Appends a body: copied when small, referenced when large.
    mutating func append(body: [UInt8]) {
        guard !body.isEmpty else { return }
        if body.count < Self.referenceThreshold {
            body.withUnsafeBufferPointer { append(copying: $0) }
        } else {
            pieces.append(.body(body))
            unsentBytes += body.count
        }
    }

    /// Appends a prebuilt answer's body: copied when small, referenced (in the cache entry that
    /// holds it) when large.
    mutating func append(bodyOf prebuilt: PrebuiltResponse) {
        let count = prebuilt.bodyCount
        guard count > 0 else { return }
        if count < Self.referenceThreshold {
            prebuilt.withBody { append(copying: $0) }
        } else {
            pieces.append(.prebuilt(prebuilt))
            unsentBytes += count
        }
    }

    /// Writes as much as the socket takes in one writev.
    mutating func write(to transport: Transport) throws(SystemError) -> SocketIO {
        guard unsentBytes > 0 else { return .done(0) }
        let count = min(64, pieces.count)
        let result = try withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) {
            vectors throws(SystemError) -> SocketIO in
            var used = 0
            for index in 0..<count {
                let skip = index == 0 ? offset : 0
                // The block, arrays and entries are held here and not changed during the write:
                // their bytes stay where they are until writev returns.
                let (base, length): (UnsafeRawPointer, Int) =
                    switch pieces[index] {
                    case .owned(let range): (UnsafeRawPointer(block.start + range.lowerBound), range.count)
                    case .body(let bytes): bytes.withUnsafeBytes { ($0.baseAddress!, $0.count) }
                    case .prebuilt(let prebuilt): prebuilt.withBody { (UnsafeRawPointer($0.baseAddress!), $0.count) }
                    }
                guard length > skip else { continue }
                vectors[used] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base + skip), iov_len: length - skip)
                used += 1
            }
            return try transport.writev(UnsafeBufferPointer(rebasing: vectors[0..<used]))
        }
        if case .done(let written) = result { consume(written) }
        return result
    }

    /// Counts `count` bytes just written at the block's end as the queue's last.
    @inline(__always)
    private mutating func noteOwned(_ count: Int) {
        guard count > 0 else { return }
        let start = block.end
        block.end += count
        unsentBytes += count
        if let last = pieces.indices.last, case .owned(let range) = pieces[last], range.upperBound == start {
            pieces[last] = .owned(range.lowerBound..<block.end)
        } else {
            pieces.append(.owned(start..<block.end))
        }
    }

    /// Makes room for `count` more bytes at the block's end: the unsent bytes slide to its start
    /// when the sent ones before them leave room enough, else the block grows.
    private mutating func reserve(_ count: Int) {
        guard block.capacity - block.end < count else { return }
        // The first unsent owned byte: what is before it has been sent.
        var firstUnsent = block.end
        for index in pieces.indices {
            if case .owned(let range) = pieces[index] {
                firstUnsent = range.lowerBound + (index == 0 ? offset : 0)
                break
            }
        }
        if firstUnsent > 0 {
            if case .owned(let range) = pieces.first {
                pieces[0] = .owned((range.lowerBound + offset)..<range.upperBound)
                offset = 0
            }
            for index in pieces.indices {
                if case .owned(let range) = pieces[index] {
                    pieces[index] = .owned((range.lowerBound - firstUnsent)..<(range.upperBound - firstUnsent))
                }
            }
            block.start.update(from: block.start + firstUnsent, count: block.end - firstUnsent)
            block.end -= firstUnsent
        }
        if block.capacity - block.end < count {
            block.reallocate(capacity: max(block.capacity * 2, block.end + count))
        }
    }

    private mutating func consume(_ written: Int) {
        unsentBytes -= written
        offset += written
        var sent = 0
        while sent < pieces.count, offset >= pieces[sent].count {
            offset -= pieces[sent].count
            sent += 1
        }
        if sent == pieces.count {
            // All sent: the block starts over (and gives back a burst's memory).
            pieces.removeAll(keepingCapacity: true)
            offset = 0
            block.end = 0
            if block.capacity > Self.keptCapacity { block.reallocate(capacity: Self.initialCapacity) }
        } else if sent > 0 {
            pieces.removeFirst(sent)
        }
    }
}

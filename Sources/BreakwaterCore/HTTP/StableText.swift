// Header text an answer carries as two words: copying, storing and dropping it costs no reference
// counting, where each copy of a heap String cost an atomic retain and release (an answer from
// the cache carried three such values: Cache-Control, Vary, Content-Type). The bytes outlive the
// answer: a literal's, a table's that are never freed, or a cache entry shape's, which the
// answer keeps alive (`HTTPResponse`'s lines owner).

import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// UTF-8 bytes that outlive whatever carries them: a string literal's, a copy made once by
/// `interned(_:)` and never freed, or bytes an owner holds (`init(start:count:)`).
package struct StableText: Sendable, Equatable {
    // Sendable: the bytes are never written after they are made.
    package nonisolated(unsafe) let start: UnsafePointer<UInt8>
    package let count: Int

    /// A literal's bytes (in the binary's constant data).
    package init(_ literal: StaticString) {
        precondition(literal.hasPointerRepresentation, "a literal of one scalar has no bytes to point at")
        start = literal.utf8Start
        count = literal.utf8CodeUnitCount
    }

    /// `count` bytes at `start`, which the caller's owner holds unchanged for as long as the text
    /// is carried.
    package init(start: UnsafePointer<UInt8>, count: Int) {
        self.start = start
        self.count = count
    }

    /// A copy of `text` that is never freed (`StableTextTable` bounds how many are made).
    fileprivate init(copying text: String) {
        var text = text
        let bytes = text.withUTF8 { source in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(source.count, 1))
            if let base = source.baseAddress { copy.initialize(from: base, count: source.count) }
            return (UnsafePointer(copy), source.count)
        }
        start = bytes.0
        count = bytes.1
    }

    package static func == (lhs: StableText, rhs: StableText) -> Bool {
        lhs.count == rhs.count && (lhs.start == rhs.start || memcmp(lhs.start, rhs.start, lhs.count) == 0)
    }

    /// The bytes.
    @inline(__always)
    package var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// The text as a String (tests, and answers turned back into header lists).
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The stable copy of `text` in the process's table (`StableTextTable.shared`).
    package static func interned(_ text: String) -> StableText? { StableTextTable.shared.interned(text) }
}

/// Texts made stable so far, by their text. Bounded, since its texts are never freed: the values
/// interned are the configurations' `Vary` values (`ResponseVary`), one per configuration loaded;
/// past the limit, answers list their `Vary` as a String again.
package final class StableTextTable: Sendable {
    /// The table answers from the cache take their texts from.
    package static let shared = StableTextTable(limit: 1024)

    /// Texts longer than this are not made stable (a header value this long is not worth
    /// keeping forever).
    package static let longestText = 512

    private let texts = Mutex<[String: StableText]>([:])
    private let limit: Int

    /// A table that makes at most `limit` texts.
    package init(limit: Int) {
        self.limit = limit
    }

    /// The stable copy of `text`, made on first use and shared after; nil when `limit` texts
    /// are made already or the text is longer than `longestText`.
    package func interned(_ text: String) -> StableText? {
        guard text.utf8.count <= Self.longestText else { return nil }
        return texts.withLock { known in
            if let stable = known[text] { return stable }
            guard known.count < limit else { return nil }
            let stable = StableText(copying: text)
            known[text] = stable
            return stable
        }
    }
}

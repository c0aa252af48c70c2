// The SHA-256 of document texts already seen, by their exact text: a client that sends the full
// query with other variables each time (a miss of a TTL-0 operation) costs a dictionary lookup
// instead of hashing the document again.

import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A text compared and hashed by its UTF-8 bytes: `String`'s own `==` and hashing treat
/// canonically equivalent spellings as one, whose SHA-256 digests differ. The bytes are hashed
/// once, with `SeededByteHash` (SipHash over a document cost more than the rest of the lookup),
/// and the dictionary compares that hash before any bytes.
private struct ExactText: Hashable {
    let text: String
    private let hash: Int

    init(text: String) {
        self.text = text
        hash = SeededByteHash.hash(text)
    }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        guard lhs.hash == rhs.hash else { return false }
        let fast = lhs.text.utf8.withContiguousStorageIfAvailable { left in
            rhs.text.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        return (fast ?? nil) ?? lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}

/// A bounded, thread-safe map from a document's exact text to its SHA-256.
///
/// Only exact text matches (String equality on the same UTF-8 bytes), so the digest is the one
/// hashing would give. Bounded by the bytes of text it holds: when a new text would pass
/// `maxTextBytes`, everything is forgotten and remembering starts again.
package final class DocumentDigests: Sendable {
    private struct State {
        var digests: [ExactText: SHA256Digest] = [:]
        var textBytes = 0
    }

    package let maxTextBytes: Int
    private let state = Mutex(State())

    package init(maxTextBytes: Int = 1 << 20) {
        self.maxTextBytes = maxTextBytes
    }

    /// The SHA-256 of `text`, remembered or computed with `hasher` (and remembered).
    package func digest(of text: String, hasher: any SHA256Hashing) -> SHA256Digest {
        let key = ExactText(text: text)
        if let known = state.withLock({ $0.digests[key] }) { return known }
        let digest = hasher.sha256(text)
        let size = text.utf8.count
        guard size <= maxTextBytes / 4 else { return digest }  // one huge document does not wipe the rest
        state.withLock { state in
            if state.textBytes + size > maxTextBytes {
                state.digests.removeAll(keepingCapacity: true)
                state.textBytes = 0
            }
            if state.digests.updateValue(digest, forKey: key) == nil { state.textBytes += size }
        }
        return digest
    }

    /// How many texts are remembered.
    package var count: Int { state.withLock { $0.digests.count } }
}

// An ordered list of header fields with case-insensitive lookup, as HTTP/1.1 carries them.

#if canImport(Glibc)
import Glibc
#endif

/// One header field. A struct, not a `(name:value:)` tuple: an array of tuples is destroyed by
/// the runtime's generic tuple walk (metadata per element), an array of these by their own
/// compiled code; every request and answer drops a few such arrays.
package struct HTTPHeaderField: Sendable, Equatable {
    package var name: String
    package var value: String

    @inline(__always)
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields in arrival order; names compare case-insensitively.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package var fields: [HTTPHeaderField]

    package init() { fields = [] }

    package init(_ fields: [HTTPHeaderField]) { self.fields = fields }

    /// Fields written as `(name:value:)` tuples (tests, literals).
    package init(_ fields: [(name: String, value: String)]) {
        self.fields = fields.map { HTTPHeaderField(name: $0.name, value: $0.value) }
    }

    /// Empty, with room for `capacity` fields (a response's headers are added one by one).
    package init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeaderField(name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        // Fields read in place and told apart by length first: `first(where:)` copied each
        // field it passed to its closure (two retains and releases a field, on every lookup).
        let count = name.utf8.count
        return fields.withUnsafeBufferPointer { fields in
            for index in fields.indices where fields[index].name.utf8.count == count {
                if fields[index].name.equalsIgnoringASCIICase(name) { return fields[index].value }
            }
            return nil
        }
    }

    /// Every value of `name`, in order.
    package func values(of name: String) -> [String] {
        // One pass over the fields in place, told apart by length first (as the subscript does):
        // `filter` then `map` built two arrays and compared every name byte by byte. Most lookups
        // find nothing, and then nothing is allocated.
        let count = name.utf8.count
        return fields.withUnsafeBufferPointer { fields in
            var values: [String] = []
            for index in fields.indices where fields[index].name.utf8.count == count {
                if fields[index].name.equalsIgnoringASCIICase(name) { values.append(fields[index].value) }
            }
            return values
        }
    }

    package func contains(_ name: String) -> Bool { self[name] != nil }

    package mutating func add(_ name: String, _ value: String) { fields.append(HTTPHeaderField(name: name, value: value)) }

    /// Replaces every field called `name` with one holding `value`.
    package mutating func replace(_ name: String, with value: String) {
        remove(name)
        fields.append(HTTPHeaderField(name: name, value: value))
    }

    package mutating func remove(_ name: String) {
        let count = name.utf8.count
        // Nothing to remove is the usual case: checked without the mutation's copy-on-write work.
        guard self[name] != nil else { return }
        fields.removeAll { $0.name.utf8.count == count && $0.name.equalsIgnoringASCIICase(name) }
    }

    package func makeIterator() -> IndexingIterator<[HTTPHeaderField]> { fields.makeIterator() }
}

extension String {
    /// Case-insensitive comparison of ASCII letters, without allocating.
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Native strings are contiguous UTF-8, so this walks two buffers without iterators; read
        // in place (`withUTF8` wanted `var` copies of both strings: a retain and release each).
        if let equal = utf8.withContiguousStorageIfAvailable({ x in
            other.utf8.withContiguousStorageIfAvailable { y in Self.equalsIgnoringASCIICase(x, y) }
        }), let equal { return equal }
        var a = self, b = other
        return a.withUTF8 { x in b.withUTF8 { y in Self.equalsIgnoringASCIICase(x, y) } }
    }

    private static func equalsIgnoringASCIICase(
        _ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        // A name is most often looked up by its own spelling: one memcmp settles that,
        // where the byte loop below cost about ten instructions a byte.
        if x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 { return true }
        for i in 0..<x.count where x[i] != y[i] && x[i].asciiLowercased != y[i].asciiLowercased {
            return false
        }
        return true
    }
}

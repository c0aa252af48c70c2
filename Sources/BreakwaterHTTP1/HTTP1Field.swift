// One header field of a parsed message, as offsets into the connection's read buffer.

/// A field's name and value (trimmed of surrounding whitespace) as ranges of the buffer the
/// parser was given; valid until the owner of the buffer discards or moves those bytes.
package struct HTTP1Field: Sendable, Equatable {
    package var name: Range<Int>
    package var value: Range<Int>

    package init(name: Range<Int>, value: Range<Int>) {
        self.name = name
        self.value = value
    }

    /// The same field after the buffer's first `count` bytes were removed.
    func shifted(by count: Int) -> HTTP1Field {
        HTTP1Field(name: (name.lowerBound - count)..<(name.upperBound - count),
                   value: (value.lowerBound - count)..<(value.upperBound - count))
    }
}

// Character classes of RFC 9110/9112 as bit tests, and comparisons over buffer ranges, so the
// parsers classify and compare bytes without tables to initialise or strings to allocate.

/// Byte classes and case-insensitive comparisons used by the HTTP/1.1 parsers.
package enum HTTP1Bytes {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58

    /// tchar (RFC 9110 5.6.2): ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        if byte < 64 { return (0x03ff_6cfa_0000_0000 as UInt64) >> UInt64(byte) & 1 == 1 }
        if byte < 128 { return (0x57ff_ffff_c7ff_fffe as UInt64) >> UInt64(byte - 64) & 1 == 1 }
        return false
    }

    /// A byte allowed inside a field value: VCHAR, obs-text, SP and HTAB (no CTL, no DEL).
    @inline(__always)
    static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F) || byte == tab
    }

    /// A byte allowed in a request-target: visible ASCII only (no space, CTL, DEL or 8-bit).
    @inline(__always)
    static func isTargetCharacter(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// The first offset in `start..<stop` whose byte is not a target character (or `stop`):
    /// sixteen bytes per step in one vector comparison, then eight, while they are all visible
    /// ASCII (a target is often hundreds of bytes: the hashed GET of APQ), then byte by byte.
    static func skipTargetCharacters(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to stop: Int) -> Int {
        var i = start
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            let low = SIMD16<UInt8>(repeating: 0x21), high = SIMD16<UInt8>(repeating: 0x7E)
            while i + 16 <= stop {
                let chunk = base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                if any((chunk .< low) .| (chunk .> high)) { break }
                i += 16
            }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= stop {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // A byte below 0x21, or above 0x7E (bit-twiddling "hasless"/"hasmore" tests).
                let below = (word &- ones &* 0x21) & ~word & highs
                let above = ((word &+ ones) | word) & highs
                if below | above != 0 { break }
                i += 8
            }
        }
        while i < stop && isTargetCharacter(bytes[i]) { i += 1 }
        return i
    }

    /// `HTTP/1.` as the low seven bytes of a little-endian word (a version's first bytes).
    static let versionPrefix: UInt64 = 0x002E_312F_5054_5448
    static let versionPrefixMask: UInt64 = 0x00FF_FFFF_FFFF_FFFF

    /// The eight bytes at `offset` as a little-endian word; the caller checked they exist.
    @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }

    /// Whether `bytes[range]` equals the lower-case ASCII `literal`, ignoring ASCII case.
    ///
    /// For bytes a parser has validated (a token, or field-value characters: no control byte but
    /// HTAB) and a literal of `a`-`z`, `0`-`9`, `-` and `/`: then setting the case bit (0x20) of
    /// a byte gives a literal's byte only from that byte or its upper case (the bit's other
    /// preimages, CR under `-`, 0x0F under `/`, 0x10-0x19 under digits, are control bytes the
    /// parsers refuse; HTAB becomes `)`, in no literal). Compared eight bytes at a time.
    package static func equalsLowercase(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ literal: StaticString
    ) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard range.count == count, let base = bytes.baseAddress else { return false }
        assert(range.upperBound <= bytes.count, "a range past its buffer")
        let actual = UnsafeRawPointer(base + range.lowerBound)
        let expected = UnsafeRawPointer(literal.utf8Start)
        guard count >= 8 else {
            for offset in 0..<count where actual.load(fromByteOffset: offset, as: UInt8.self) | 0x20
                != expected.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        }
        let caseBits: UInt64 = 0x2020_2020_2020_2020
        var offset = 0
        while offset + 8 < count {
            if actual.loadUnaligned(fromByteOffset: offset, as: UInt64.self) | caseBits
                != expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        // The last eight bytes, overlapping what was compared.
        return actual.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) | caseBits
            == expected.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// The plain decimal number in `bytes[range]`, or nil (empty, a sign, a space, any other
    /// character, or a value beyond 2^53).
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 16 else { return nil }
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// Calls `body` with each comma-separated element of `bytes[range]`, trimmed of whitespace;
    /// empty elements are skipped (RFC 9110 5.6.1).
    static func forEachListElement(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ body: (Range<Int>) -> Void
    ) {
        var start = range.lowerBound
        while start <= range.upperBound {
            var end = start
            while end < range.upperBound && bytes[end] != 44 { end += 1 }
            var first = start, last = end
            while first < last && isWhitespace(bytes[first]) { first += 1 }
            while last > first && isWhitespace(bytes[last - 1]) { last -= 1 }
            if first < last { body(first..<last) }
            start = end + 1
        }
    }
}

// ASCII case folding, written once: HTTP's field names, media types and directives compare
// case-insensitively, and only ASCII letters fold (RFC 9110 §5.1).

extension UInt8 {
    /// The byte with an ASCII upper-case letter folded to lower case; any other byte unchanged.
    @inline(__always)
    package var asciiLowercased: UInt8 { self >= 65 && self <= 90 ? self | 0x20 : self }
}

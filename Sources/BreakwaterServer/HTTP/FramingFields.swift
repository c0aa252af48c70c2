// The header fields that frame a message, which the engine writes itself in both directions: a
// handler's (or a client's, forwarded) would contradict the real framing (RFC 9112 section 6).

import BreakwaterCore

/// Names of the framing fields, compared without allocating.
enum FramingFields {
    /// `Connection`, `Content-Length` or `Transfer-Encoding`, in any case.
    @inline(__always)
    static func contains(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: name.equalsIgnoringASCIICase("Connection")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: false
        }
    }
}

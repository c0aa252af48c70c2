// How a plain connection says it speaks HTTP/2 with prior knowledge (RFC 9113 3.3): its first
// 24 bytes are the connection preface. No HTTP/1.1 request starts with them.

/// The client connection preface and the choice it makes.
public enum HTTP2Preface {
    /// "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".
    public static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public enum Choice: Sendable, Equatable {
        case http2
        case http1
        /// The bytes so far agree with the preface and are fewer than it.
        case needMore
    }

    /// The protocol the first bytes of a connection choose.
    public static func choose(_ first: UnsafeBufferPointer<UInt8>) -> Choice {
        let count = min(first.count, bytes.count)
        for index in 0..<count where first[index] != bytes[index] { return .http1 }
        return count == bytes.count ? .http2 : .needMore
    }
}

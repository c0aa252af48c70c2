// The request limits of HTTP/1.1 applied to an HTTP/2 stream, so that a request is refused with
// the same status on either protocol: the path as the request-target (414), the decoded header
// list as the head (431; HPACK can make a small block decode to a large list), the body (413).

/// The bounds of one stream's request, in bytes.
public struct HTTP2HeadLimits: Sendable, Equatable {
    /// Longest `:path`.
    public var maxTargetBytes: Int
    /// Largest decoded header list, counted as its HTTP/1.1 head would be.
    public var maxHeadBytes: Int
    /// Largest body.
    public var maxBodyBytes: Int

    public init(maxTargetBytes: Int, maxHeadBytes: Int, maxBodyBytes: Int) {
        self.maxTargetBytes = maxTargetBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// What a request breaks, the first limit in the order HTTP/1.1 checks them.
    public enum Refusal: Sendable, Equatable {
        /// 414.
        case targetTooLong(length: Int, limit: Int)
        /// 431.
        case headTooLarge(length: Int, limit: Int)
        /// 413.
        case bodyTooLarge(length: Int, limit: Int)
    }

    /// The bytes a field adds to the head: `name: value` and its line end, as in HTTP/1.1.
    @inline(__always)
    public static func fieldBytes(nameCount: Int, valueCount: Int) -> Int { nameCount + valueCount + 4 }

    /// The verdict on a complete head: its `:path` length, its counted bytes and its declared
    /// `content-length`, if any.
    public func check(targetBytes: Int, headBytes: Int, declaredBodyBytes: Int?) -> Refusal? {
        if targetBytes > maxTargetBytes { return .targetTooLong(length: targetBytes, limit: maxTargetBytes) }
        if headBytes > maxHeadBytes { return .headTooLarge(length: headBytes, limit: maxHeadBytes) }
        if let declaredBodyBytes, declaredBodyBytes > maxBodyBytes {
            return .bodyTooLarge(length: declaredBodyBytes, limit: maxBodyBytes)
        }
        return nil
    }

    /// The verdict on a body that has grown to `bodyBytes`.
    public func check(bodyBytes: Int) -> Refusal? {
        bodyBytes > maxBodyBytes ? .bodyTooLarge(length: bodyBytes, limit: maxBodyBytes) : nil
    }
}

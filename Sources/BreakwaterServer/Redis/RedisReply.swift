// A Redis reply as a Swift value, copied out of hiredis's reply inside its callback (hiredis
// frees the reply when the callback returns).

import CHiredis

/// One RESP2 reply.
package enum RedisReply: Sendable, Equatable {
    case string([UInt8])
    case status(String)
    case integer(Int64)
    case null
    case error(String)
    case array([RedisReply])

    /// Copies `reply` (nil: the connection went away before the reply arrived).
    init?(_ reply: UnsafeMutableRawPointer?) {
        guard let reply else { return nil }
        self.init(copying: reply.assumingMemoryBound(to: redisReply.self).pointee)
    }

    private init(copying reply: redisReply) {
        switch reply.type {
        case CHiredis_REPLY_STRING:
            self = .string(Self.bytes(reply))
        case CHiredis_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(reply), as: UTF8.self))
        case CHiredis_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(reply), as: UTF8.self))
        case CHiredis_REPLY_INTEGER:
            self = .integer(reply.integer)
        case CHiredis_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(reply.elements)
            for index in 0..<reply.elements {
                if let element = reply.element[index] { elements.append(RedisReply(copying: element.pointee)) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func bytes(_ reply: redisReply) -> [UInt8] {
        guard let text = reply.str, reply.len > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: text, count: reply.len))
    }

    /// The bytes of a bulk string; nil for any other reply.
    package var bytes: [UInt8]? {
        if case .string(let bytes) = self { return bytes }
        return nil
    }

    /// Whether Redis refused the command (`-ERR`, `-OOM`, `-NOAUTH`...).
    package var isError: Bool {
        if case .error = self { return true }
        return false
    }
}

// Copies headers and bodies out of evhttp's structures, for requests and responses alike.

import BreakwaterCore
import CLibevent

/// Readers for the parts of an evhttp message.
enum EvhttpMessage {
    /// The fields of an evkeyvalq, in order.
    static func headers(_ list: UnsafeMutablePointer<evkeyvalq>?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard let list else { return headers }
        var field = CLibevent_keyvalq_first(list)
        while let current = field {
            headers.add(String(cString: current.pointee.key), String(cString: current.pointee.value))
            field = CLibevent_keyval_next(current)
        }
        return headers
    }

    /// The whole content of an evbuffer, copied.
    static func body(_ buffer: OpaquePointer?) -> [UInt8] {
        guard let buffer else { return [] }
        let length = evbuffer_get_length(buffer)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { bytes, count in
            count = Int(evbuffer_copyout(buffer, bytes.baseAddress, length))
        }
    }
}

// A failed system, libevent or OpenSSL call, as a typed error naming the call and its reason.

import Foundation

/// Why a call through the System door failed.
package struct SystemError: Error, Sendable, CustomStringConvertible {
    /// The call that failed ("accept4", "event_new", "SSL_accept").
    package let call: String
    /// errno for system calls, 0 when the library gave no code.
    package let code: Int32
    package let reason: String

    init(_ call: String, errno code: Int32) {
        self.call = call
        self.code = code
        self.reason = String(cString: strerror(code))
    }

    init(_ call: String, reason: String) {
        self.call = call
        self.code = 0
        self.reason = reason
    }

    /// The file-descriptor table is full (the process's or the system's).
    package var isDescriptorExhaustion: Bool { code == EMFILE || code == ENFILE }

    package var description: String { "\(call): \(reason)" }
}

// Why the persisted-query store could not use its file, in words an operator can act on.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file operation of the persisted-query store: the file, the step and the system's reason.
package struct PersistedQueryStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the operation was on.
    package let path: String
    /// What the store was doing: `open`, `read`, `write`, `truncate`, `sync`, `rename`, `create folder`.
    package let operation: String
    /// The `errno` the system reported, 0 when the failure was not a system call's.
    package let errorNumber: Int32

    package init(path: String, operation: String, errorNumber: Int32) {
        self.path = path
        self.operation = operation
        self.errorNumber = errorNumber
    }

    package var description: String {
        let reason = errorNumber == 0 ? "failed" : String(cString: strerror(errorNumber))
        return "persisted-query store \(path): cannot \(operation): \(reason)"
    }
}

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
    /// What the store was doing: `open`, `read`, `write`, `truncate`, `sync`, `rename`.
    package let operation: String
    /// The `errno` the system reported, 0 when the failure was not a system call's.
    package let errorNumber: Int32

    /// Why, in words, when the failure was not a system call's (`errorNumber` 0).
    package let reason: String?

    package init(path: String, operation: String, errorNumber: Int32, reason: String? = nil) {
        self.path = path
        self.operation = operation
        self.errorNumber = errorNumber
        self.reason = reason
    }

    /// The file at `path` holds something other than a registry store: it is refused, never written.
    package static func notAStore(_ path: String) -> Self {
        Self(
            path: path, operation: "use", errorNumber: 0,
            reason: "the file exists and is not a Breakwater persisted-query store (its first line is not "
                + "\"breakwater persisted-query store 1\"); it was left untouched: point "
                + "persisted_queries.store at a new path or move the file away")
    }

    package var description: String {
        let why = reason ?? (errorNumber == 0 ? "failed" : String(cString: strerror(errorNumber)))
        return "persisted-query store \(path): cannot \(operation): \(why)"
    }
}

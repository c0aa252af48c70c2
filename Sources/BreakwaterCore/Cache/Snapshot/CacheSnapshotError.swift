// Why a cache snapshot could not be read or written, in words an operator can act on
// (docs/OPERATING.md, "The cache across restarts"). The caller logs it and serves on.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed step of reading or writing a snapshot: the file, the step and the reason.
package struct CacheSnapshotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the step was on.
    package let path: String
    /// What was being done: `open`, `read`, `write`, `sync`, `rename`, `use`.
    package let operation: String
    /// The `errno` the system reported, 0 when the failure was not a system call's.
    package let errorNumber: Int32
    /// Why, in words, when the failure was not a system call's.
    package let reason: String?
    /// The file is not a snapshot this build may replace: it is never written over.
    package let isForeignFile: Bool

    package init(
        path: String, operation: String, errorNumber: Int32, reason: String? = nil, isForeignFile: Bool = false
    ) {
        self.path = path
        self.operation = operation
        self.errorNumber = errorNumber
        self.reason = reason
        self.isForeignFile = isForeignFile
    }

    /// The file at `path` exists and is not a cache snapshot (or one of a layout this build does
    /// not know): it is neither read nor written.
    package static func notASnapshot(_ path: String, kind: CacheSnapshotHeader.Kind) -> Self {
        let what =
            if case .unknownVersion(let version) = kind {
                "is a cache snapshot of format \(version), which this build does not know"
            } else {
                "exists and is not a Breakwater cache snapshot"
            }
        return Self(
            path: path, operation: "use", errorNumber: 0,
            reason: "the file \(what); it was left untouched and is not written over: point cache.snapshot at "
                + "a new path or move the file away",
            isForeignFile: true)
    }

    /// The header is ours but damaged: nothing is loaded; the next write replaces the file.
    package static func damagedHeader(_ path: String) -> Self {
        Self(
            path: path, operation: "read", errorNumber: 0,
            reason: "the snapshot's header is damaged; nothing was loaded")
    }

    package var description: String {
        let why = reason ?? (errorNumber == 0 ? "failed" : String(cString: strerror(errorNumber)))
        return "cache snapshot \(path): cannot \(operation): \(why)"
    }
}

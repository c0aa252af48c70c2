// The files Breakwater writes, opened before it serves: the access-log file, the registry
// store and the cache snapshot. `run` refuses to start and `validate` fails when one cannot be opened, so a typo in a
// path is caught where the operator looks, not found later as a log that was never written.
// Breakwater creates no folders: a path whose folder is missing is far more often a typo than a
// wish, and a process running as root would otherwise create it anywhere.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Configuration {
    /// Every problem with the files this configuration writes, in file order.
    public func writtenFileProblems(in source: ConfigurationSource) -> [ConfigurationError.Problem] {
        (storeProblems(in: source) + snapshotProblems(in: source) + accessLogProblems(in: source))
            .sorted { $0.line < $1.line }
    }

    /// The cache snapshot, when `cache.snapshot` names one: its folder must exist and the file be
    /// readable and writable there, or creatable (it is replaced through a temporary file beside it).
    public func snapshotProblems(in source: ConfigurationSource) -> [ConfigurationError.Problem] {
        guard !cache.snapshot.isEmpty, let problem = WritableFile.problem(cache.snapshot, readable: true) else {
            return []
        }
        return [source.problem(ConfigurationKeys.Cache.snapshot.path, problem)]
    }

    /// The access-log file, when `logging.access_log` names one: its folder must exist and the file
    /// be writable or creatable there.
    public func accessLogProblems(in source: ConfigurationSource) -> [ConfigurationError.Problem] {
        guard case .file(let path) = logging.accessLog, let problem = WritableFile.problem(path, readable: false) else {
            return []
        }
        return [source.problem(ConfigurationKeys.Logging.accessLog.path, problem)]
    }

    /// The registry store, when the registry keeps one: its folder must exist and the file be
    /// readable and writable, or creatable there.
    public func storeProblems(in source: ConfigurationSource) -> [ConfigurationError.Problem] {
        let store = persistedQueries.store
        guard !store.isEmpty, persistedQueries.mode == .automatic,
            let problem = WritableFile.problem(store, readable: true)
        else { return [] }
        let key = ConfigurationKeys.PersistedQueries.store.path
        let unset = source.sets(key) ? "" : " (the default, as the file does not set \(key); \"\" keeps the registry in memory)"
        return [source.problem(key, problem + unset)]
    }
}

/// Opens a file the way Breakwater will write it, and leaves nothing behind.
package enum WritableFile {
    /// Nil when `path` can be opened for appending (and reading, when `readable`): an existing
    /// file, or a new one in a folder that exists. A file created to find out is removed again.
    package static func problem(_ path: String, readable: Bool) -> String? {
        let folder = folderPath(of: path)
        var status = stat()
        if stat(folder, &status) != 0 {
            let code = errno
            return code == ENOENT
                ? "folder \(folder) does not exist (Breakwater creates no folders: create it with "
                    + "`mkdir -p \(shellQuoted(folder))`, or correct the path)"
                : "cannot reach folder \(folder): \(message(code))"
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { return "\(folder) is not a folder" }
        let openMode = readable ? O_RDWR : O_WRONLY
        if stat(path, &status) == 0 {
            let kind = status.st_mode & S_IFMT
            if kind == S_IFDIR { return "\(path) is a folder, not a file" }
            // A pipe or a device (a log reader's FIFO, /dev/null): opening a FIFO for writing
            // waits for its reader, so only the permission is checked.
            if kind != S_IFREG {
                return access(path, readable ? R_OK | W_OK : W_OK) == 0
                    ? nil : "cannot open \(path) for writing: \(message(errno))"
            }
            let descriptor = open(path, openMode | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else {
                return "cannot open \(path) for \(readable ? "reading and writing" : "writing"): \(message(errno))"
            }
            _ = close(descriptor)
            return nil
        }
        let descriptor = open(path, openMode | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return "cannot create \(path): \(message(errno))" }
        _ = close(descriptor)
        _ = unlink(path)
        return nil
    }

    /// The folder `path` is in: "." for a bare name, "/" for a file at the root.
    private static func folderPath(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// `path` as one shell word, so that the `mkdir -p` a problem suggests can be pasted as it is.
    private static func shellQuoted(_ path: String) -> String {
        let plain = path.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                true
            default: false
            }
        }
        return plain ? path : "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}

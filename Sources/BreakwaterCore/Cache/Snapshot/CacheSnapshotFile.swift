// The cache snapshot's file operations (docs/OPERATING.md, "The cache across restarts"): what a
// file at the path is, reading it a chunk at a time, and replacing it whole (a temporary file in
// the same folder, fsync, rename, fsync of the folder), as PersistedQueryStore does for the
// registry's file.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// System calls on a snapshot's path, each failure a `CacheSnapshotError`.
package enum CacheSnapshotFile {
    /// What the file at `path` holds, by its first bytes; nil when there is no file.
    package static func kind(at path: String) throws(CacheSnapshotError) -> CacheSnapshotHeader.Kind? {
        guard var reader = try Reader(path: path) else { return nil }
        _ = try reader.ensure(CacheSnapshotHeader.size)
        return reader.withAvailable { CacheSnapshotHeader.kind(of: $0.prefix(CacheSnapshotHeader.size)) }
    }

    /// Replaces the file at `path` with what `fill` writes: into `<path>.writing` in the same
    /// folder, synced, renamed over `path`, and the folder synced so the rename survives a crash.
    /// A crash or a failure leaves the old file whole; the temporary file is removed on failure.
    package static func replace(
        _ path: String, _ fill: (inout Writer) throws(CacheSnapshotError) -> Void
    ) throws(CacheSnapshotError) -> Int {
        let temporary = path + ".writing"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CacheSnapshotError(path: temporary, operation: "create", errorNumber: errno)
        }
        var writer = Writer(descriptor: descriptor, path: temporary)
        do throws(CacheSnapshotError) {
            try fill(&writer)
            try writer.flush()
            guard fsync(descriptor) == 0 else {
                throw CacheSnapshotError(path: temporary, operation: "sync", errorNumber: errno)
            }
            guard close(descriptor) == 0 else {
                throw CacheSnapshotError(path: temporary, operation: "close", errorNumber: errno)
            }
        } catch {
            _ = close(descriptor)
            _ = unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw CacheSnapshotError(path: path, operation: "rename", errorNumber: code)
        }
        let folder = folderPath(of: path)
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            defer { _ = close(folderDescriptor) }
            guard fsync(folderDescriptor) == 0 else {
                throw CacheSnapshotError(path: folder, operation: "sync", errorNumber: errno)
            }
        }
        return writer.written
    }

    /// Buffers bytes and writes them a megabyte at a time.
    package struct Writer {
        private let descriptor: Int32
        private let path: String
        private var buffer: [UInt8] = []
        /// Bytes handed to the writer so far.
        package private(set) var written = 0
        static let chunkSize = 1 << 20

        init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
            buffer.reserveCapacity(Self.chunkSize + (64 << 10))
        }

        /// Appends bytes through `body`, writing the buffer out once it holds a chunk.
        package mutating func append(_ body: (inout [UInt8]) -> Void) throws(CacheSnapshotError) {
            let before = buffer.count
            body(&buffer)
            written += buffer.count - before
            if buffer.count >= Self.chunkSize { try flush() }
        }

        mutating func flush() throws(CacheSnapshotError) {
            var offset = 0
            var failure: Int32 = 0
            buffer.withUnsafeBytes { bytes in
                while offset < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else {
                        failure = count < 0 ? errno : ENOSPC
                        return
                    }
                    offset += count
                }
            }
            guard failure == 0 else { throw CacheSnapshotError(path: path, operation: "write", errorNumber: failure) }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Reads a file front to back through a window of a chunk or more.
    package struct Reader: ~Copyable {
        private let descriptor: Int32
        private let path: String
        /// Allocated once (and grown only for a record longer than a chunk): bytes are read into
        /// `buffer[end...]` and consumed from `head`.
        private var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        private var head = 0
        private var end = 0
        private var atEnd = false
        static let chunkSize = 1 << 20

        /// Opens `path` for reading; nil when there is no file.
        package init?(path: String) throws(CacheSnapshotError) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                if code == ENOENT { return nil }
                throw CacheSnapshotError(path: path, operation: "open", errorNumber: code)
            }
            self.descriptor = descriptor
            self.path = path
        }

        deinit { _ = close(descriptor) }

        /// Bytes read and not consumed.
        package var available: Int { end - head }

        /// Reads until `count` bytes are available or the file ends; whether they are.
        package mutating func ensure(_ count: Int) throws(CacheSnapshotError) -> Bool {
            guard available < count, !atEnd else { return available >= count }
            let (head, end) = (self.head, self.end)
            if head > 0 {
                buffer.withUnsafeMutableBytes { bytes in
                    bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + head, byteCount: end - head)
                }
                self.end = end - head
                self.head = 0
            }
            if buffer.count < count {
                buffer.append(contentsOf: [UInt8](repeating: 0, count: count - buffer.count))
            }
            var failure: Int32 = 0
            while available < count && !atEnd {
                let filled = self.end
                let got = buffer.withUnsafeMutableBytes { bytes in
                    read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
                }
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if got == 0 { atEnd = true }
                self.end += got
            }
            guard failure == 0 else { throw CacheSnapshotError(path: path, operation: "read", errorNumber: failure) }
            return available >= count
        }

        /// Runs `body` over the bytes available.
        package func withAvailable<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[head..<end])) }
        }

        /// A copy of `count` available bytes from `offset` on.
        package func copy(from offset: Int, count: Int) -> [UInt8] {
            buffer.withUnsafeBytes { bytes in
                [UInt8](unsafeUninitializedCapacity: count) { copy, initialized in
                    copy.baseAddress!.initialize(
                        from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + head + offset, count: count)
                    initialized = count
                }
            }
        }

        /// Consumes `count` available bytes.
        package mutating func advance(_ count: Int) {
            head += min(count, available)
        }
    }

    /// Removes the file at `path`; whether it is gone.
    @discardableResult
    package static func remove(_ path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }

    /// The folder `path` is in: "." for a bare name, "/" for a file at the root.
    static func folderPath(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

// libFuzzer harness: the registry store's loader on any file contents never crashes, never
// writes to a file it refuses, and leaves a file that loads back to the same records with no
// damage left (scripts/fuzz.sh). The file lives on /dev/shm when there is one.

import BreakwaterCore
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

/// The scratch file, one per fuzzing process.
private enum Scratch {
    static let path: String = {
        let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        return "\(folder)/breakwater-fuzz-store-\(getpid()).log"
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPersistedQueryStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(fuzzInput(data, size))
    let path = Scratch.path
    writeFile(bytes)
    defer { unlink(path) }
    guard let store = try? PersistedQueryStore(path: path) else { fatalError("cannot open \(path)") }
    let records: [(SHA256Digest, String)]
    do {
        records = try store.load()
    } catch {
        precondition(readFile() == bytes, "a refused file was changed")
        return 0
    }
    guard let reopened = try? PersistedQueryStore(path: path), let again = try? reopened.load() else {
        fatalError("the file the loader left does not load")
    }
    precondition(again.map(\.0) == records.map(\.0) && again.map(\.1) == records.map(\.1), "records changed")
    precondition(reopened.droppedBytes == 0 || store.skippedRecords > 0, "damage left behind")
    return 0
}

private func writeFile(_ bytes: [UInt8]) {
    let descriptor = open(Scratch.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(descriptor >= 0)
    bytes.withUnsafeBytes { precondition(write(descriptor, $0.baseAddress, $0.count) == $0.count) }
    close(descriptor)
}

private func readFile() -> [UInt8] {
    let descriptor = open(Scratch.path, O_RDONLY)
    precondition(descriptor >= 0)
    defer { close(descriptor) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if got <= 0 { return result }
        result += chunk[..<got]
    }
}

runFuzzer(fuzzPersistedQueryStore)

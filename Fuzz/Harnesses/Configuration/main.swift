// libFuzzer harness: the config loader on any text never crashes; it answers a Configuration or
// problems that each name the file (scripts/fuzz.sh).

import BreakwaterCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    do {
        _ = try ConfigurationLoader.parse(yaml: text, file: "fuzz.yaml", baseDirectory: "/nonexistent")
    } catch {
        precondition(!error.problems.isEmpty, "a refused config names no problem")
        precondition(error.problems.allSatisfy { $0.file == "fuzz.yaml" }, "a problem names another file")
    }
    return 0
}

runFuzzer(fuzzConfiguration)

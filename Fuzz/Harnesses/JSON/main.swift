// libFuzzer harness: the JSON parser on any bytes never crashes, and what it accepts survives a
// write and a second parse unchanged (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).

import BreakwaterCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(fuzzInput(data, size))
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    let written = JSONWriter.encode(value)
    guard let again = try? JSONParser.parse(written) else { fatalError("the writer's output does not parse") }
    precondition(again == value, "a write and a second parse changed the value")
    return 0
}

runFuzzer(fuzzJSON)

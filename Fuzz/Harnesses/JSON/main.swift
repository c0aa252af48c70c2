// libFuzzer harness: the JSON parser on any bytes never crashes, what it accepts survives a
// write and a second parse unchanged, and the plain POST body's short way reads what the whole
// parse reads (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).

import BreakwaterCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(fuzzInput(data, size))
    let plain = JSONParser.plainGraphQLPOST(bytes)
    guard let value = try? JSONParser.parse(bytes) else {
        precondition(plain == nil, "the short way read a body the whole parse refuses")
        return 0
    }
    if let plain {
        guard case .object(let members) = value else { fatalError("the short way read a body that is no object") }
        for (key, member) in members {
            switch key {
            case "query": precondition(member == .string(plain.query), "the short way read another query")
            case "operationName":
                precondition(member == (plain.operationName.map(JSONValue.string) ?? .null), "another operationName")
            case "variables": precondition(member == (plain.variables ?? .null), "the short way read other variables")
            default: fatalError("the short way read a body with the member \(key)")
            }
        }
    }
    let written = JSONWriter.encode(value)
    guard let again = try? JSONParser.parse(written) else { fatalError("the writer's output does not parse") }
    precondition(again == value, "a write and a second parse changed the value")
    return 0
}

runFuzzer(fuzzJSON)

// libFuzzer harness: canonical variables (cache keys, README "The response cache") are stable: the canonical
// form of anything the parser accepts parses back to a value whose canonical form is the same,
// and reordering an object's members does not change it (scripts/fuzz.sh).

import BreakwaterCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCanonicalVariables(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(fuzzInput(data, size))
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    let canonical = JSONWriter.canonical(value)
    guard let reparsed = try? JSONParser.parse(canonical) else { fatalError("canonical form does not parse") }
    precondition(JSONWriter.canonical(reparsed) == canonical, "canonical form is not a fixed point")
    if case .object(let members) = value, members.count > 1,
        Set(members.map(\.key)).count == members.count
    {
        let reversed = JSONValue.object(Array(members.reversed()))
        precondition(JSONWriter.canonical(reversed) == canonical, "member order changed the canonical form")
    }
    return 0
}

runFuzzer(fuzzCanonicalVariables)

// libFuzzer harness: operation analysis (kinds, names, nesting bound) on any document text never
// crashes; an accepted document's lone operation is selectable by its name (scripts/fuzz.sh).

import BreakwaterCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOperationAnalysis(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    guard let analysis = try? OperationAnalysis(document: text) else { return 0 }
    _ = try? analysis.select(operationName: nil)
    for operation in analysis.operations {
        guard let name = operation.name else { continue }
        let selected = try? analysis.select(operationName: name)
        precondition(selected == nil || selected?.name == name, "selected another operation than the one named")
    }
    return 0
}

runFuzzer(fuzzOperationAnalysis)

// libFuzzer harness: the HTTP/1.1 request parser on any bytes never crashes, keeps every range
// it reports inside the buffer, answers only the statuses the README's "GraphQL over HTTP rules" names, and reaches
// the same requests and verdict whether the bytes arrive at once or split where the input's
// first byte says (`make fuzz-http1` builds it with -sanitize=fuzzer,address).

import FuzzSupport
import BreakwaterHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// What the parser made of a stream, comparable across splits.
private struct Outcome: Equatable {
    var requests: [[UInt8]] = []
    var status: Int?
}

private func parse(_ wire: ArraySlice<UInt8>, splitAt split: Int) -> Outcome {
    let parser = HTTP1RequestParser(limits: HTTP1RequestLimits(maxTargetBytes: 256, maxHeadBytes: 1024, maxBodyBytes: 2048))
    var buffer: [UInt8] = []
    var outcome = Outcome()
    var current: [UInt8] = []
    for piece in [wire.prefix(split), wire.dropFirst(split)] {
        buffer += piece
        reading: while true {
            let event = buffer.withUnsafeBufferPointer { parser.next(in: $0) }
            switch event {
            case .needMore:
                break reading
            case .head:
                let head = parser.head
                for range in [head.method, head.target] + head.fields.flatMap({ [$0.name, $0.value] }) {
                    precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "a range outside the buffer")
                }
                current = Array(buffer[head.method]) + [32] + Array(buffer[head.target]) + [10]
                for field in head.fields { current += buffer[field.name] + [58] + buffer[field.value] + [10] }
            case .body(let range):
                precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "a body range outside the buffer")
                current += buffer[range]
            case .end:
                outcome.requests.append(current)
            case .error(let error):
                precondition([400, 413, 414, 431, 501].contains(error.status), "an unexpected status \(error.status)")
                outcome.status = error.status
                return outcome
            }
        }
        let unneeded = parser.retainedFrom
        precondition(unneeded >= 0 && unneeded <= buffer.count, "retainedFrom outside the buffer")
        buffer.removeFirst(unneeded)
        parser.discard(unneeded)
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1RequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let wire = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let bytes = Array(wire)[...]
    let split = Int(data[0]) % (bytes.count + 1)
    let whole = parse(bytes, splitAt: bytes.count)
    let divided = parse(bytes, splitAt: split)
    precondition(whole == divided, "splitting the input at \(split) changed the outcome")
    return 0
}

runFuzzer(fuzzHTTP1RequestParser)

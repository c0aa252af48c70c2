// libFuzzer harness: the HTTP/1.1 response parser (the origin side) on any bytes never crashes,
// keeps every range it reports inside the buffer, delivers a Content-Length body at exactly
// that length, and reaches the same responses and verdict whether the bytes arrive at once or
// split where the input's first byte says, and whether the origin then closes or not
// (`make fuzz-http1` builds it with -sanitize=fuzzer,address).

import FuzzSupport
import BreakwaterHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// What the parser made of a stream, comparable across splits.
private struct Outcome: Equatable {
    var responses: [[UInt8]] = []
    var error: HTTP1ParseError.Reason?
}

private func parse(_ wire: ArraySlice<UInt8>, splitAt split: Int, toHEAD: Bool) -> Outcome {
    var parser = HTTP1ResponseParser(maxHeadBytes: 1024, maxBodyBytes: 4096)
    parser.expectResponse(toHEAD: toHEAD)
    var buffer: [UInt8] = []
    var outcome = Outcome()
    var current: [UInt8] = []
    var declaredLength: Int?
    var bodyBytes = 0

    func handle(_ event: HTTP1ResponseParser.Event) -> Bool {
        switch event {
        case .needMore:
            return false
        case .head:
            let head = parser.head
            precondition(head.status >= 200 && head.status <= 999 && head.status != 101, "a head with status \(head.status)")
            for range in head.fields.flatMap({ [$0.name, $0.value] }) {
                precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "a range outside the buffer")
            }
            current = Array(String(head.status).utf8) + [10]
            for field in head.fields { current += buffer[field.name] + [58] + buffer[field.value] + [10] }
            if case .length(let length) = head.bodyLength { declaredLength = length } else { declaredLength = nil }
            bodyBytes = 0
        case .body(let range):
            precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "a body range outside the buffer")
            precondition(!range.isEmpty, "an empty body event")
            current += buffer[range]
            bodyBytes += range.count
            if let declaredLength { precondition(bodyBytes <= declaredLength, "more body than Content-Length") }
        case .end:
            if let declaredLength { precondition(bodyBytes == declaredLength, "a body shorter than Content-Length") }
            outcome.responses.append(current)
            // The next response on the connection answers a GET.
            parser.expectResponse(toHEAD: false)
        case .error(let error):
            outcome.error = error.reason
            return true
        }
        return true
    }

    for piece in [wire.prefix(split), wire.dropFirst(split)] {
        buffer += piece
        while true {
            let event = buffer.withUnsafeBufferPointer { parser.next(in: $0) }
            if case .needMore = event { break }
            _ = handle(event)
            if outcome.error != nil { return outcome }
        }
        let unneeded = parser.retainedFrom
        precondition(unneeded >= 0 && unneeded <= buffer.count, "retainedFrom outside the buffer")
        buffer.removeFirst(unneeded)
        parser.discard(unneeded)
    }
    // The origin closes: a close-delimited body ends here, anything else unfinished is truncated.
    _ = handle(parser.finishAtClose())
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1ResponseParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))[...]
    let split = Int(data[0] >> 1) % (bytes.count + 1)
    let toHEAD = data[0] & 1 == 1
    let whole = parse(bytes, splitAt: bytes.count, toHEAD: toHEAD)
    let divided = parse(bytes, splitAt: split, toHEAD: toHEAD)
    precondition(whole == divided, "splitting the input at \(split) changed the outcome")
    return 0
}

runFuzzer(fuzzHTTP1ResponseParser)

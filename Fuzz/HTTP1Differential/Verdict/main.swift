// http1-verdict: the request parser's verdict on byte streams, one JSON line per input line,
// for the differential test against llhttp (Fuzz/HTTP1Differential/differential.py).
// Each input line is one case in hex; each output line is
// {"requests":[{"method":hex,"target":hex,"version":"1.x","headers":[[hex,hex]],"body":hex,"keepAlive":bool}],
//  "error":"reason"|null,"status":int|null}

import BreakwaterHTTP1

func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

func unhex(_ line: Substring) -> [UInt8]? {
    let utf8 = Array(line.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}

/// The verdict on `wire` received all at once (the unit tests prove every split agrees).
func verdict(_ wire: [UInt8]) -> String {
    let parser = HTTP1RequestParser(limits: HTTP1RequestLimits(maxTargetBytes: 1 << 20, maxHeadBytes: 1 << 20, maxBodyBytes: 1 << 24))
    var requests: [String] = []
    var current = ""
    var body: [UInt8] = []
    var error = "null"
    var status = "null"
    wire.withUnsafeBufferPointer { bytes in
        reading: while true {
            switch parser.next(in: bytes) {
            case .needMore:
                break reading
            case .head:
                let head = parser.head
                let headers = head.fields.map { "[\"\(hex(bytes[$0.name]))\",\"\(hex(bytes[$0.value]))\"]" }
                current = "{\"method\":\"\(hex(bytes[head.method]))\",\"target\":\"\(hex(bytes[head.target]))\","
                    + "\"version\":\"1.\(head.minorVersion)\",\"headers\":[\(headers.joined(separator: ","))],"
                    + "\"keepAlive\":\(head.keepAlive),"
                body = []
            case .body(let range):
                body += bytes[range]
            case .end:
                requests.append(current + "\"body\":\"\(hex(body))\"}")
            case .error(let refused):
                error = "\"\(refused.reason)\""
                status = "\(refused.status)"
                break reading
            }
        }
    }
    return "{\"requests\":[\(requests.joined(separator: ","))],\"error\":\(error),\"status\":\(status)}"
}

while let line = readLine(strippingNewline: true) {
    guard let wire = unhex(line[...]) else {
        print("{\"requests\":[],\"error\":\"bad input line\",\"status\":null}")
        continue
    }
    print(verdict(wire))
}

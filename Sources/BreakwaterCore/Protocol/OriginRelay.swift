// How an origin's answer is relayed to the client (README, "The origin side").

/// The client-facing form of an origin response.
package enum OriginRelay {
    /// Relays status, `Content-Type` and body; a 5xx without a GraphQL JSON body becomes 502
    /// so that an origin's HTML error page never reaches the client.
    package static func relay(_ origin: HTTPResponse) -> HTTPResponse {
        if origin.status >= 500 && !isGraphQLErrorBody(origin.body) {
            return GraphQLErrorResponse.originError(status: origin.status).response
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", origin.headers["Content-Type"] ?? "application/json")
        return HTTPResponse(status: origin.status, headers: headers, body: origin.body)
    }

    /// Whether `body` is a JSON object with a top-level `errors` member: a GraphQL error answer,
    /// not an HTML or plain-text page.
    package static func isGraphQLErrorBody(_ body: [UInt8]) -> Bool {
        jsonObject(body).map(hasErrors) ?? false
    }

    /// Whether `body` is a JSON object with a top-level `errors` member, parsed only when the
    /// bytes `"errors"` occur in it: an answer without them (almost every one) costs one scan.
    package static func hasTopLevelErrors(_ body: [UInt8]) -> Bool {
        guard containsErrorsKey(body) else { return false }
        return isGraphQLErrorBody(body)
    }

    /// Whether the 8 bytes `"errors"` occur anywhere in `body`. Sixteen bytes are compared at a
    /// time (SIMD), four such windows a step, for an `r` followed by an `r`, rare in JSON; only
    /// around such a pair are the 8 bytes compared with the key (bench/callgrind.sh, miss:
    /// BENCHMARKS.md).
    private static func containsErrorsKey(_ body: [UInt8]) -> Bool {
        body.withUnsafeBytes { bytes in
            let count = bytes.count
            guard count >= 8, let base = bytes.baseAddress else { return false }
            // `"errors"` as a little-endian word; its `rr` is at bytes 2 and 3.
            let key: UInt64 = 0x2273_726F_7272_6522
            func isKey(at start: Int) -> Bool {
                start >= 0 && start + 8 <= count
                    && UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self)) == key
            }
            guard count >= 17 else {
                for start in 0...count - 8 where isKey(at: start) { return true }
                return false
            }
            let r = SIMD16<UInt8>(repeating: UInt8(ascii: "r"))
            /// Which of the pairs starting at offset ..< offset + 16 are `rr`.
            func pairs(at offset: Int) -> SIMDMask<SIMD16<Int8>> {
                let first = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                let second = base.loadUnaligned(fromByteOffset: offset + 1, as: SIMD16<UInt8>.self)
                return (first .== r) .& (second .== r)
            }
            /// Whether the pairs starting at offset ..< offset + 16 hold the key's `rr`.
            func hasKey(inWindowAt offset: Int) -> Bool {
                guard any(pairs(at: offset)) else { return false }
                for pair in offset..<offset + 16 where isKey(at: pair - 2) { return true }
                return false
            }
            var offset = 0
            // Four windows at a time, their pairs or-ed: one test per 64 bytes (a 1 KiB answer
            // cost about 900 instructions a window at a time).
            while offset + 65 <= count {
                let found = pairs(at: offset) .| pairs(at: offset + 16) .| pairs(at: offset + 32) .| pairs(at: offset + 48)
                // Tested as two words: the library's `any` of combined masks was a call.
                let words = unsafeBitCast(found, to: SIMD2<UInt64>.self)
                if words[0] | words[1] != 0 {
                    for window in stride(from: offset, to: offset + 64, by: 16) where hasKey(inWindowAt: window) {
                        return true
                    }
                }
                offset += 64
            }
            while offset + 17 <= count {
                if hasKey(inWindowAt: offset) { return true }
                offset += 16
            }
            // The last window, overlapping the one before: the pairs of the last bytes.
            return offset < count - 1 && hasKey(inWindowAt: count - 17)
        }
    }

    /// The body parsed, when it is a JSON object (the only form a GraphQL answer takes).
    package static func jsonObject(_ body: [UInt8]) -> JSONValue? {
        guard let value = try? JSONParser.parse(body), value.isObject else { return nil }
        return value
    }

    /// The one test of "the answer has errors" (README, "The response cache"): a top-level `errors` member,
    /// even an empty one.
    package static func hasErrors(_ answer: JSONValue) -> Bool {
        answer["errors"] != nil
    }
}

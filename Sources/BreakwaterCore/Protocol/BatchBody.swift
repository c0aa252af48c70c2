// Batched POSTs (README "GraphQL over HTTP rules"): a JSON array of operations, as Apollo Client's BatchHttpLink
// and Apollo iOS/Kotlin batching send it. The array is split into its elements' exact bytes,
// each then handled as a request of its own; nothing is decoded or re-encoded here.

/// Splits a batch body into its elements' bytes.
package enum BatchBody {
    /// Whether `body` is a batch: its first non-whitespace byte opens an array.
    package static func isBatch(_ body: [UInt8]) -> Bool {
        body.first(where: { !isWhitespace($0) }) == UInt8(ascii: "[")
    }

    /// The elements of the top-level array, each as its bytes; a 400 for an array that is not
    /// well formed at the top level, empty, or longer than `maxElements`. Each element's own
    /// validity is left to the endpoint that receives it.
    package static func elements(of body: [UInt8], maxElements: Int) throws(GraphQLErrorResponse) -> [[UInt8]] {
        guard let open = body.firstIndex(where: { !isWhitespace($0) }), body[open] == UInt8(ascii: "[") else {
            throw .badRequest("A batch must be a JSON array of operations.")
        }
        var elements: [[UInt8]] = []
        var depth = 0, inString = false, escaped = false
        var start = open + 1
        var closed: Int?
        scan: for index in (open + 1)..<body.count {
            let byte = body[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: "]") where depth == 0:
                try append(body[start..<index], to: &elements, last: true)
                closed = index
                break scan
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                try append(body[start..<index], to: &elements, last: false)
                start = index + 1
            default: break
            }
            if depth < 0 { throw .badRequest("A batch must be a JSON array of operations.") }
            if elements.count > maxElements { break }
        }
        guard elements.count <= maxElements else {
            throw .badRequest("A batch holds at most \(maxElements) operations (server.max_batch).")
        }
        guard let closed, body[(closed + 1)...].allSatisfy(isWhitespace) else {
            throw .badRequest("A batch must be a JSON array of operations.")
        }
        guard !elements.isEmpty else { throw .badRequest("A batch must hold at least one operation.") }
        return elements
    }

    /// Adds a trimmed element; an empty one is an error unless it is the whole of `[]`.
    private static func append(_ bytes: ArraySlice<UInt8>, to elements: inout [[UInt8]], last: Bool) throws(GraphQLErrorResponse) {
        let trimmed = bytes.drop(while: isWhitespace).reversed().drop(while: isWhitespace).reversed()
        if trimmed.isEmpty {
            if last && elements.isEmpty { return }
            throw .badRequest("A batch must be a JSON array of operations.")
        }
        elements.append(Array(trimmed))
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

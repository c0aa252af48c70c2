// The GraphQL error code of an answer Breakwater gave itself (`{"errors":[{..."extensions":
// {"code":"X"}}]}`), for the access log and `breakwater_errors_total{code}`. Read from the
// body's first error only on answers that carry errors, never on a cached hit.

/// Finds `errors[0].extensions.code` in an error body without parsing the whole document.
package enum AnswerErrorCode {
    private static let prefix = Array(#"{"errors":"#.utf8)
    private static let marker = Array(#""code":""#.utf8)

    /// The code, when `body` is an error body with one; nil otherwise.
    package static func code(in body: [UInt8]) -> String? {
        guard body.count > prefix.count, body.starts(with: prefix) else { return nil }
        guard let start = body.firstRange(of: marker)?.upperBound else { return nil }
        guard let end = body[start...].firstIndex(of: UInt8(ascii: "\"")), end - start <= 64 else { return nil }
        let code = body[start..<end]
        guard code.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
        else { return nil }
        return String(decoding: code, as: UTF8.self)
    }
}

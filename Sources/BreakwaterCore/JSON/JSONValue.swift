// A parsed JSON value that keeps numbers exactly as written and object members in order, so
// that variables can be canonicalised without losing precision (README "The response cache").

/// A JSON value (RFC 8259).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text exactly as it appeared (`1`, `-0.5e10`, `12345678901234567890`).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order; keys are unique (the parser rejects duplicates).
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member `key` of an object, or nil (for non-objects too).
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    package var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

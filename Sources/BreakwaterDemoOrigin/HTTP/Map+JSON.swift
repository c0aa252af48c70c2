// Converts between GraphQL's `Map` and the core's `JSONValue`, so the demo origin reads
// requests with the core's parser and writes answers with the core's JSON writer (one parser,
// one writer, one string escaper in the project).

import BreakwaterCore
import GraphQL

extension Map {
    /// The map as JSON, keys in the map's own order: the same `Map` always gives the same bytes.
    var json: JSONValue {
        switch self {
        case .undefined, .null: .null
        case .bool(let bool): .bool(bool)
        case .number(let number): Self.json(number)
        case .string(let string): .string(string)
        case .array(let array): .array(array.map(\.json))
        case .dictionary(let dictionary):
            .object(dictionary.compactMap { key, element in element.isUndefined ? nil : (key: key, value: element.json) })
        }
    }

    /// The JSON bytes of the map.
    var jsonBytes: [UInt8] { JSONWriter.encode(json) }

    /// A JSON value as a `Map` (variables handed to the schema).
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .number(let text):
            if let integer = Int(text) { self = .number(Number(integer)) } else { self = .number(Number(Double(text) ?? 0)) }
        case .string(let string): self = .string(string)
        case .array(let elements): self = .array(elements.map(Map.init))
        case .object(let members):
            // Keys are unique: the core's parser rejects duplicates.
            self = .dictionary(.init(uniqueKeysWithValues: members.map { ($0.key, Map($0.value)) }))
        }
    }

    /// Whole numbers print without a fraction ("3", not "3.0"), as JavaScript servers print them.
    private static func json(_ number: Number) -> JSONValue {
        let double = number.doubleValue
        if number.storageType == .bool { return .bool(number.boolValue) }
        if number.storageType == .int { return .number(String(number.intValue)) }
        if !double.isFinite { return .null }
        if double == double.rounded(), abs(double) < 9.007_199_254_740_992e15 { return .number(String(Int64(double))) }
        return .number(String(double))
    }
}

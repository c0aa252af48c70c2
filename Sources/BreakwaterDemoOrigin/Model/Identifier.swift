// The GraphQL `ID` scalar for Graphiti, which maps only String, Int, Double and Bool itself.

import GraphQL
import Graphiti

/// A GraphQL `ID`: serialised as a string, accepted as a string or an integer (as the spec says).
struct Identifier: Codable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    var rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    init(stringLiteral value: String) { rawValue = value }

    init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    var description: String { rawValue }
}

extension Identifier {
    /// Output coercion: an `Identifier` is its string.
    @Sendable static func serialize(_ value: Any, _: Coders) throws -> Map {
        guard let identifier = value as? Identifier else {
            throw GraphQLError(message: "ID cannot represent value: \(value)")
        }
        return .string(identifier.rawValue)
    }

    /// Variable coercion: strings as they are, whole numbers as their decimal digits.
    @Sendable static func parseValue(_ value: Map, _: Coders) throws -> Map {
        if case .string = value { return value }
        guard let number = value.wholeNumber else {
            throw GraphQLError(message: "ID cannot represent value: \(value)")
        }
        return .string(String(number))
    }

    /// Literal coercion: `"60"` and `60` both mean the ID "60".
    @Sendable static func parseLiteral(_ value: any GraphQL.Value, _: Coders) throws -> Map {
        if let string = value as? StringValue { return .string(string.value) }
        if let int = value as? IntValue { return .string(int.value) }
        throw GraphQLError(
            message: "ID cannot represent a non-string and non-integer value", nodes: [value]
        )
    }
}

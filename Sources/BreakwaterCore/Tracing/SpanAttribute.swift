// One attribute of a span, as OTLP's `KeyValue` carries it: a string, an integer or a flag.

/// One key and value of a span (OTLP's `KeyValue`).
package struct SpanAttribute: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        case string(String)
        case int(Int)
        case bool(Bool)
    }

    package var key: String
    package var value: Value

    package init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    package init(_ key: String, _ value: String) { self.init(key, .string(value)) }
    package init(_ key: String, _ value: Int) { self.init(key, .int(value)) }
    package init(_ key: String, _ value: Bool) { self.init(key, .bool(value)) }
}

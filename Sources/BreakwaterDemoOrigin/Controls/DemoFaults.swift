// The fault knobs integration tests turn on the demo origin through `POST /_demo/faults`.

import GraphQL

/// How the origin misbehaves on every GraphQL request until reset.
struct DemoFaults: Sendable, Equatable {
    /// Added as `Cache-Control` to GraphQL answers; nil adds none.
    var cacheControl: String?
    /// Added as `Set-Cookie` to GraphQL answers; nil adds none.
    var setCookie: String?
    /// A `Vary` header on every GraphQL answer.
    var vary: String?
    /// Answer this status instead of executing the operation; nil executes normally.
    var status: Int?
    /// What a forced status answers with.
    var statusBody: StatusBody = .json
    /// Drop the connection without an answer.
    var close = false
    /// Wait this long before answering (or closing).
    var delayMilliseconds = 0
    /// Answer the proxy's schema introspection alone with this status (its body per
    /// `statusBody`), so that a proxy serves without the schema while clients get answers.
    var introspectionStatus: Int?

    /// The body of a forced status: an error page as a web server or load balancer sends it,
    /// or a GraphQL error object as a GraphQL server does.
    enum StatusBody: String, Sendable {
        case html
        case json
    }

    /// Applies a `POST /_demo/faults` body: absent keys keep their value, `null` clears one,
    /// `"reset": true` clears every knob before the others apply.
    mutating func apply(_ body: Map) throws(DemoRequestError) {
        guard case .dictionary(let fields) = body else {
            throw DemoRequestError("The faults body must be a JSON object.")
        }
        if case .bool(true)? = fields["reset"] { self = DemoFaults() }
        for (key, value) in fields {
            switch key {
            case "reset": break
            case "cacheControl": cacheControl = try Self.string(value, key)
            case "setCookie": setCookie = try Self.string(value, key)
            case "vary": vary = try Self.string(value, key)
            case "status":
                status = try Self.int(value, key)
                if let status, !(100...599).contains(status) {
                    throw DemoRequestError("`status` must be an HTTP status between 100 and 599.")
                }
            case "statusBody":
                guard let text = try Self.string(value, key) else { statusBody = .json; break }
                guard let body = StatusBody(rawValue: text) else {
                    throw DemoRequestError("`statusBody` must be \"html\" or \"json\".")
                }
                statusBody = body
            case "close":
                switch value {
                case .bool(let flag): close = flag
                case .null: close = false
                default: throw DemoRequestError("`close` must be a boolean.")
                }
            case "delayMs": delayMilliseconds = max(0, try Self.int(value, key) ?? 0)
            case "introspectionStatus":
                introspectionStatus = try Self.int(value, key)
                if let introspectionStatus, !(100...599).contains(introspectionStatus) {
                    throw DemoRequestError("`introspectionStatus` must be an HTTP status between 100 and 599.")
                }
            default: throw DemoRequestError("Unknown fault `\(key)`.")
            }
        }
    }

    /// The knobs as `GET /_demo/faults` shows them, keys in a fixed order.
    var map: Map {
        [
            "cacheControl": cacheControl.map(Map.string) ?? .null,
            "setCookie": setCookie.map(Map.string) ?? .null,
            "vary": vary.map(Map.string) ?? .null,
            "status": status.map(Map.int) ?? .null,
            "statusBody": .string(statusBody.rawValue),
            "close": .bool(close),
            "delayMs": .int(delayMilliseconds),
            "introspectionStatus": introspectionStatus.map(Map.int) ?? .null,
        ]
    }

    private static func string(_ value: Map, _ key: String) throws(DemoRequestError) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw DemoRequestError("`\(key)` must be a string or null.")
        }
    }

    private static func int(_ value: Map, _ key: String) throws(DemoRequestError) -> Int? {
        if case .null = value { return nil }
        guard let number = value.wholeNumber, abs(number) < 1_000_000_000 else {
            throw DemoRequestError("`\(key)` must be an integer or null.")
        }
        return number
    }
}

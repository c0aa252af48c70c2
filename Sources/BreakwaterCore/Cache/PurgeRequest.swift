// The body of `POST /purge` (README "Watching it: the admin endpoints"): what to purge, and whether softly.

/// A parsed purge request.
package struct PurgeRequest: Sendable, Equatable {
    package var selector: PurgeSelector
    /// Soft: entries turn stale (served while refreshed) instead of vanishing.
    package var soft: Bool

    package init(selector: PurgeSelector, soft: Bool) { (self.selector, self.soft) = (selector, soft) }

    /// Parses `{"operation":..}`, `{"hash":..}`, `{"type":..,"id":..}`, `{"type":..}` or
    /// `{"all":true}`, each with an optional `"soft": true`. Anything else is a 400 that says
    /// what is wrong.
    package static func parse(_ body: [UInt8]) throws(GraphQLErrorResponse) -> PurgeRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw .badRequest("The purge body is not valid JSON: \(error.message).")
        }
        guard case .object(let members) = value else { throw .badRequest(usage) }
        var soft = false
        var fields: [String: JSONValue] = [:]
        for (key, member) in members {
            switch key {
            case "soft":
                guard case .bool(let flag) = member else { throw .badRequest("\"soft\" must be true or false.") }
                soft = flag
            case "operation", "hash", "type", "id", "all":
                fields[key] = member
            default:
                throw .badRequest("Unknown purge field \"\(key)\". \(usage)")
            }
        }
        return PurgeRequest(selector: try selector(from: fields), soft: soft)
    }

    private static let usage =
        #"Send one of {"operation":"Name"}, {"hash":"<sha256>"}, {"type":"Type","id":"1"}, {"type":"Type"}, {"all":true}, optionally with "soft":true."#

    private static func selector(from fields: [String: JSONValue]) throws(GraphQLErrorResponse) -> PurgeSelector {
        switch Set(fields.keys) {
        case ["all"]:
            guard fields["all"] == .bool(true) else { throw .badRequest(#""all" must be true."#) }
            return .all
        case ["operation"]:
            guard let name = fields["operation"]?.stringValue, !name.isEmpty else {
                throw .badRequest(#""operation" must be a non-empty string."#)
            }
            return .operation(name)
        case ["hash"]:
            guard let text = fields["hash"]?.stringValue, let digest = SHA256Digest(hex: text) else {
                throw .badRequest(#""hash" must be 64 hex digits (the document's SHA-256)."#)
            }
            return .document(digest)
        case ["type"], ["type", "id"]:
            guard let type = fields["type"]?.stringValue, !type.isEmpty else {
                throw .badRequest(#""type" must be a non-empty string."#)
            }
            switch fields["id"] {
            case nil: return .tag(type)
            case .string(let id)?: return .tag("\(type):\(id)")
            case .number(let id)?: return .tag("\(type):\(id)")
            default: throw .badRequest(#""id" must be a string or a number."#)
            }
        default:
            throw .badRequest(usage)
        }
    }
}

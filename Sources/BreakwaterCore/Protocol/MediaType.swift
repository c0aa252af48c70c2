// Media-type checks for request Content-Type headers.

/// Parsing of `type/subtype; parameters` values.
package enum MediaType {
    /// Whether `contentType` is `application/json`, parameters such as charset allowed.
    package static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
        return essence.equalsIgnoringASCIICase("application/json")
    }

    /// Whether a response's `contentType` is JSON: `application/json` or
    /// `application/graphql-response+json`, parameters allowed.
    package static func isJSONResponse(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
        return essence.equalsIgnoringASCIICase("application/json")
            || essence.equalsIgnoringASCIICase("application/graphql-response+json")
    }
}

// docs/SCHEMA.md: a mutation that names entities (`__typename` + `id`) in its answer purges the
// cached entries tagged with them, so the next read sees the change.

/// Which cache tags a mutation's answer invalidates.
package enum MutationInvalidation {
    /// The `Type:id` tags of the entities in a successful JSON answer's `data`. Bare `Type`
    /// tags are left out: booking one launch must not drop every cached launch.
    /// `known`: the answer's tags as the stripper already read them (a rewritten mutation).
    package static func tags(in answer: HTTPResponse, known: [String]? = nil) -> [String] {
        guard answer.status == 200, MediaType.isJSONResponse(answer.headers["Content-Type"]) else { return [] }
        if let known { return known.filter { $0.contains(":") } }
        guard let value = try? JSONParser.parse(answer.body), let data = value["data"] else { return [] }
        return EntityTags.extract(from: data).filter { $0.contains(":") }
    }
}

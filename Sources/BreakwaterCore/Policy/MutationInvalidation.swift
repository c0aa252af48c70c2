// SPEC 5.3: a mutation that names entities (`__typename` + `id`) in its answer purges the
// cached entries tagged with them, so the next read sees the change.

/// Which cache tags a mutation's answer invalidates.
package enum MutationInvalidation {
    /// The `Type:id` tags of the entities in a successful JSON answer's `data`. Bare `Type`
    /// tags are left out: booking one launch must not drop every cached launch.
    package static func tags(in answer: HTTPResponse) -> [String] {
        guard answer.status == 200, MediaType.isJSONResponse(answer.headers["Content-Type"]),
            let value = try? JSONParser.parse(answer.body), let data = value["data"]
        else { return [] }
        return EntityTags.extract(from: data).filter { $0.contains(":") }
    }
}

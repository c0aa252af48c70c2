// The answers of one batched POST (README "GraphQL over HTTP rules"), gathered as they arrive in
// any order and joined into one JSON array in the elements' order: an element with no JSON
// answer gets an error object of its own; X-Cache is HIT only when every element was a hit.

/// One batch's answers so far; `deliver` returns the batch's answer once every element has one.
package struct BatchAnswers: Sendable {
    /// The code of the error object that stands in for an element with no JSON answer.
    package static let elementFailedCode = "BATCH_ELEMENT_FAILED"

    private var answers: [HTTPResponse?]
    private var remaining: Int

    package init(count: Int) {
        answers = Array(repeating: nil, count: count)
        remaining = count
    }

    /// Records element `index`'s answer (nil: the element was dropped without one; a second
    /// answer for an element is ignored) and returns the batch's answer when it was the last.
    package mutating func deliver(_ response: HTTPResponse?, at index: Int) -> HTTPResponse? {
        guard answers.indices.contains(index), answers[index] == nil, remaining > 0 else { return nil }
        answers[index] = response ?? HTTPResponse(status: 502)
        remaining -= 1
        return remaining == 0 ? Self.combine(answers.compactMap { $0 }) : nil
    }

    /// `[a,b,...]` of the elements' bodies, with the headers a batch answer carries.
    package static func combine(_ answers: [HTTPResponse]) -> HTTPResponse {
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (index, answer) in answers.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            let element = answer.completeBody
            if element.first == UInt8(ascii: "{") {
                body += element
            } else {
                body += GraphQLErrorResponse(
                    status: answer.status, message: "The operation got no JSON answer (HTTP \(answer.status)).",
                    code: elementFailedCode
                ).body
            }
        }
        body.append(UInt8(ascii: "]"))
        let allHits = !answers.isEmpty && answers.allSatisfy { $0.headers["X-Cache"] == XCache.hit.headerValue }
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Cache-Control": "private, no-store",
            "X-Cache": allHits ? XCache.hit.headerValue : XCache.miss.headerValue,
        ]
        var response = HTTPResponse(status: 200, headers: headers, body: body)
        // CORS rides on every element's answer alike: the batch answer carries it too, with the
        // `Vary: Origin` that goes with an allowed origin other than `*`.
        if let first = answers.first {
            for field in first.headers.fields where field.name.lowercased().hasPrefix("access-control-") {
                response.headers.add(field.name, field.value)
            }
            if first.headers.values(of: "Vary").contains(where: Self.namesOrigin) {
                response.headers.add("Vary", "Origin")
            }
        }
        return response
    }

    /// Whether a `Vary` value lists `Origin`.
    private static func namesOrigin(_ vary: String) -> Bool {
        vary.split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" }.lowercased() == "origin" }
    }
}

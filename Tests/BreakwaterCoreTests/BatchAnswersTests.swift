// A batch's answers joined in the elements' order whatever order they arrive in (BatchAnswers),
// in-process.

import BreakwaterCore
import Testing

struct BatchAnswersTests {
    static func answer(_ body: String, cache: XCache = .hit, extra: [(String, String)] = []) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: ["X-Cache": cache.headerValue], body: body)
        for (name, value) in extra { response.headers.add(name, value) }
        return response
    }

    @Test(arguments: [[0, 1, 2], [2, 0, 1], [1, 2, 0]])
    func answersJoinInTheElementsOrderWhateverOrderTheyArriveIn(order: [Int]) throws {
        var batch = BatchAnswers(count: 3)
        var joined: HTTPResponse?
        for (step, index) in order.enumerated() {
            joined = batch.deliver(Self.answer(#"{"data":\#(index)}"#), at: index)
            #expect((joined == nil) == (step < 2), "the answer goes out with the last element, not before")
        }
        let answer = try #require(joined)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"[{"data":0},{"data":1},{"data":2}]"#)
        #expect(answer.headers["X-Cache"] == "HIT")
        #expect(answer.headers["Cache-Control"] == "private, no-store")
        #expect(answer.headers["Content-Type"] == "application/json")
    }

    @Test func aSecondAnswerForAnElementIsIgnored() {
        var batch = BatchAnswers(count: 2)
        #expect(batch.deliver(Self.answer(#"{"a":1}"#), at: 0) == nil)
        #expect(batch.deliver(Self.answer(#"{"a":2}"#), at: 0) == nil)
        #expect(batch.deliver(Self.answer(#"{"a":3}"#), at: 5) == nil, "no such element")
        let answer = batch.deliver(Self.answer(#"{"b":1}"#), at: 1)
        #expect(answer.map { String(decoding: $0.body, as: UTF8.self) } == #"[{"a":1},{"b":1}]"#)
    }

    @Test func anElementWithoutAJSONAnswerGetsAnErrorObjectAndTheBatchIsAMiss() throws {
        var batch = BatchAnswers(count: 3)
        _ = batch.deliver(Self.answer(#"{"data":1}"#), at: 0)
        _ = batch.deliver(nil, at: 1)
        let last = batch.deliver(HTTPResponse(status: 304, headers: ["X-Cache": "HIT"]), at: 2)
        let answer = try #require(last)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(text.hasPrefix(#"[{"data":1},{"errors":[{"message":"The operation got no JSON answer (HTTP 502)."#), "\(text)")
        #expect(text.contains("(HTTP 304)"))
        #expect(text.components(separatedBy: BatchAnswers.elementFailedCode).count == 3)
        #expect(answer.headers["X-Cache"] == "MISS", "HIT only when every element was a hit")
    }

    @Test func corsAndItsVaryOriginRideOnTheBatchAnswer() throws {
        let cors: [(String, String)] = [
            ("Access-Control-Allow-Origin", "https://app.example.com"), ("Vary", "Accept-Encoding, Origin"),
        ]
        var batch = BatchAnswers(count: 2)
        _ = batch.deliver(Self.answer(#"{"a":1}"#, cache: .miss, extra: cors), at: 1)
        let last = batch.deliver(Self.answer(#"{"b":1}"#, extra: cors), at: 0)
        let answer = try #require(last)
        #expect(answer.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
        #expect(answer.headers.values(of: "Vary") == ["Origin"])
        #expect(answer.headers["X-Cache"] == "MISS")

        var plain = BatchAnswers(count: 1)
        let only = plain.deliver(Self.answer("{}", extra: [("Vary", "Accept-Encoding")]), at: 0)
        let withoutCORS = try #require(only)
        #expect(withoutCORS.headers.values(of: "Vary").isEmpty)
        #expect(withoutCORS.headers["Access-Control-Allow-Origin"] == nil)
    }
}

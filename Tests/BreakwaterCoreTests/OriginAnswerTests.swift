// Relaying origin answers, and the error bodies Breakwater writes itself.

import BreakwaterCore
import Foundation
import Testing

struct OriginAnswerTests {
    @Test func relaysStatusContentTypeAndBody() {
        let origin = HTTPResponse(
            status: 400, headers: ["Content-Type": "application/graphql-response+json", "X-Secret": "s"],
            body: #"{"errors":[{"message":"Cannot query field"}]}"#)
        let relayed = OriginRelay.relay(origin)
        #expect(relayed.status == 400)
        #expect(relayed.headers["Content-Type"] == "application/graphql-response+json")
        #expect(relayed.headers["X-Secret"] == nil)
        #expect(relayed.body == origin.body)
    }

    /// The word is found at every offset and alignment, and only a top-level member counts.
    @Test func topLevelErrorsAreFoundAtEveryOffset() {
        // Past 130 bytes of padding, so that the key falls at every place of a 64-byte step too.
        for padding in 0..<150 {
            let filler = String(repeating: "x", count: padding)
            #expect(OriginRelay.hasTopLevelErrors(Array(#"{"data":{"a":"\#(filler)"},"errors":[]}"#.utf8)), "\(padding)")
            #expect(OriginRelay.hasTopLevelErrors(Array(#"{"errors":[{"message":"\#(filler)"}]}"#.utf8)), "\(padding)")
            #expect(!OriginRelay.hasTopLevelErrors(Array(#"{"data":{"\#(filler)":"errors","errors":1}}"#.utf8)))
            #expect(!OriginRelay.hasTopLevelErrors(Array(#"{"data":{"a":"\#(filler)terrors rr \"error\""}}"#.utf8)))
        }
        for short in ["", "{}", #""errors""#, #"{"errors"#] {
            #expect(!OriginRelay.hasTopLevelErrors(Array(short.utf8)), "\(short)")
        }
        #expect(OriginRelay.hasTopLevelErrors(Array(#"{"errors":[]}"#.utf8)))
    }

    @Test func jsonFiveHundredIsRelayedAsSent() {
        let origin = HTTPResponse(status: 503, headers: ["Content-Type": "application/json"], body: #" {"errors":[]}"#)
        #expect(OriginRelay.relay(origin).status == 503)
    }

    @Test(arguments: ["<html><body>Internal Server Error</body></html>", "oops", "{\"data\":null}", ""])
    func nonGraphQLFiveHundredBecomesBadGatewayHidingThePage(body: String) throws {
        let relayed = OriginRelay.relay(HTTPResponse(status: 500, headers: ["Content-Type": "text/html"], body: body))
        #expect(relayed.status == 502)
        #expect(relayed.headers["Content-Type"] == "application/json")
        let text = String(decoding: relayed.body, as: UTF8.self)
        #expect(!text.contains("html"))
        #expect(text.contains("500"))
    }

    @Test func errorBodyIsValidJSONWithEscapedMessage() throws {
        let error = GraphQLErrorResponse(status: 400, message: "bad \"quote\"\n\u{1}", code: "BAD_REQUEST")
        let object = try JSONSerialization.jsonObject(with: Data(error.body)) as? [String: Any]
        let first = (object?["errors"] as? [[String: Any]])?.first
        #expect(first?["message"] as? String == "bad \"quote\"\n\u{1}")
        #expect((first?["extensions"] as? [String: Any])?["code"] as? String == "BAD_REQUEST")
        #expect(error.response.headers["Cache-Control"] == "no-store")
    }

    @Test func methodNotAllowedCarriesAllow() {
        let response = GraphQLErrorResponse.methodNotAllowed("PUT").response
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, POST")
    }

    @Test(arguments: [
        ("application/json", true), ("application/json; charset=utf-8", true), ("Application/JSON", true),
        ("text/plain", false), ("application/x-www-form-urlencoded", false), ("multipart/form-data; boundary=x", false),
        ("application/jsonx", false),
    ])
    func mediaTypeRecognisesJSON(value: String, isJSON: Bool) {
        #expect(MediaType.isJSON(value) == isJSON)
    }

    @Test func timeoutIsGatewayTimeoutAndRefusalIsBadGateway() {
        #expect(GraphQLErrorResponse.originUnavailable(.timeout).status == 504)
        #expect(GraphQLErrorResponse.originUnavailable(.unreachable("refused")).status == 502)
    }
}

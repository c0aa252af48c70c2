// Every error answer Breakwater makes carries its GraphQL error code (body, access log,
// statistics) and `X-Cache: BYPASS`: the origin's failures (502, 504), an origin 5xx relayed
// or turned into 502, and the errors Breakwater answers before any cache lookup.

import BreakwaterCore
import Foundation
import Testing

struct ErrorAnswerTests {
    private static let client = ClientView(isGET: false, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])

    struct Failure: Sendable, CustomTestStringConvertible {
        var label: String
        var outcome: OriginOutcome
        var status: Int
        var code: String
        var testDescription: String { label }
    }

    static let failures: [Failure] = [
        Failure(label: "refused", outcome: .failed(.refused("connection refused")), status: 502, code: "ORIGIN_UNAVAILABLE"),
        Failure(label: "reset", outcome: .failed(.unreachable("reset")), status: 502, code: "ORIGIN_UNAVAILABLE"),
        Failure(label: "tls", outcome: .failed(.tls("handshake")), status: 502, code: "ORIGIN_UNAVAILABLE"),
        Failure(label: "malformed", outcome: .failed(.malformed("bad line")), status: 502, code: "ORIGIN_BAD_RESPONSE"),
        Failure(label: "timeout", outcome: .failed(.timeout), status: 504, code: "ORIGIN_TIMEOUT"),
        Failure(
            label: "HTML 503 page",
            outcome: .serverError(HTTPResponse(status: 503, headers: ["Content-Type": "text/html"], body: "<html>")),
            status: 502, code: "ORIGIN_ERROR"),
        Failure(
            label: "GraphQL 500 relayed",
            outcome: .serverError(
                HTTPResponse(status: 500, headers: ["Content-Type": "application/json"], body: #"{"errors":[{"message":"x"}]}"#)),
            status: 500, code: "ORIGIN_ERROR"),
    ]

    @Test(arguments: failures)
    func originFailureAnswersCarryTheirCodeAndBypass(_ failure: Failure) throws {
        let reply = FetchOutcome.failed(failure.outcome).reply(for: Self.client)
        #expect(reply.response.status == failure.status)
        #expect(reply.errorCode == failure.code)
        #expect(reply.cache == .bypass)
        #expect(reply.bypassReason == .originFailure)
        #expect(reply.response.headers["X-Cache"] == "BYPASS")
        #expect(reply.response.headers.values(of: "X-Cache").count == 1)
        #expect(reply.response.headers.values(of: "Cache-Control").count == 1)
        // Breakwater's own bodies name the code; a relayed origin body stays as the origin sent it.
        if failure.status != 500 {
            #expect(AnswerErrorCode.code(in: reply.response.completeBody) == failure.code)
        }
    }

    @Test func upstreamErrorReasonsAreTheDocumentedSet() {
        #expect(UpstreamErrorReason.allCases.map(\.rawValue) == ["refused", "reset", "timeout", "tls", "malformed", "5xx"])
        let reasons = Self.failures.map { $0.outcome.errorReason?.rawValue }
        #expect(reasons == ["refused", "reset", "tls", "malformed", "timeout", "5xx", "5xx"])
        #expect(OriginOutcome.answered(HTTPResponse(status: 404)).errorReason == nil)
    }

    @Test func everyOriginErrorCodeIsPreCreated() {
        for failure in Self.failures {
            #expect(GraphQLErrorResponse.answeredCodes.contains(failure.code))
            #expect(GraphQLErrorResponse.answeredStatuses.contains(failure.status) || failure.status == 500)
        }
    }

    @Test func earlyErrorAnswersAreBypassWithTheErrorAnswerReason() {
        let reply = FlowReply.error(.missingQuery, client: Self.client)
        #expect(reply.response.headers["X-Cache"] == "BYPASS")
        #expect(reply.cache == .bypass)
        #expect(reply.bypassReason == .errorAnswer)
        #expect(reply.errorCode == "BAD_REQUEST")
    }
}

// Runs GraphQL documents against the in-process demo origin, a real executor, for the Schema tests.

import BreakwaterCore
import BreakwaterDemoOrigin
import Foundation
import Synchronization
import Testing

enum SchemaTestOrigin {
    /// The origin's answer body for `query`; fails the test on a non-200 status.
    static func execute(
        _ query: String, origin: DemoOrigin = DemoOrigin(testControls: false), authorization: String? = nil
    ) async throws -> [UInt8] {
        let body = try JSONSerialization.data(withJSONObject: ["query": query])
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let authorization { headers.add("Authorization", authorization) }
        let request = HTTPRequest(method: "POST", target: "/graphql", headers: headers, body: Array(body))
        let response = await withCheckedContinuation { continuation in
            origin.handle(request, responder: OnceResponder(continuation))
        }
        let answer = try #require(response, "the origin closed the connection")
        #expect(answer.status == 200)
        return answer.body
    }
}

private final class OnceResponder: HTTPResponder {
    private let continuation: Mutex<CheckedContinuation<HTTPResponse?, Never>?>

    init(_ continuation: CheckedContinuation<HTTPResponse?, Never>) { self.continuation = Mutex(continuation) }

    func respond(_ response: HTTPResponse) { finish(response) }
    func closeConnection() { finish(nil) }

    private func finish(_ response: HTTPResponse?) {
        let pending = continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }
        pending?.resume(returning: response)
    }
}

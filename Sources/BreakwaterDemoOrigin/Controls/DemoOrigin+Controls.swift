// The `/_demo/` endpoints: counters to read, faults to set, a reset between tests.

import BreakwaterCore
import Foundation
import GraphQL

extension DemoOrigin {
    static let controlsPrefix = "/_demo/"

    /// The methods each control endpoint answers, for the `Allow` header of a 405.
    private static let controlMethods = ["counters": "GET", "reset": "POST", "faults": "GET, POST"]

    /// Answers a control request at once: controls never wait and never see the faults.
    func answerControl(_ request: HTTPRequest) -> HTTPResponse {
        let ok: Map = ["ok": true]
        switch (request.method, request.path.dropFirst(Self.controlsPrefix.count)) {
        case ("GET", "counters"):
            return Self.jsonResponse(status: 200, controls.counters.map)
        case ("POST", "reset"):
            controls.reset()
            return Self.jsonResponse(status: 200, ok)
        case ("GET", "faults"):
            return Self.jsonResponse(status: 200, controls.faults.map)
        case ("POST", "faults"):
            do throws(DemoRequestError) {
                guard let body = try? JSONDecoder().decode(Map.self, from: Data(request.body)) else {
                    throw DemoRequestError("The faults body is not valid JSON.")
                }
                try controls.updateFaults(body)
                return Self.jsonResponse(status: 200, ok)
            } catch {
                return Self.errorResponse(status: 400, message: error.message, code: "BAD_REQUEST")
            }
        case (_, let endpoint) where Self.controlMethods[String(endpoint)] != nil:
            var response = Self.errorResponse(
                status: 405, message: "Method \(request.method) is not allowed here.", code: "METHOD_NOT_ALLOWED"
            )
            response.headers.add("Allow", Self.controlMethods[String(endpoint)] ?? "")
            return response
        default:
            return Self.errorResponse(status: 404, message: "Not found: \(request.path)", code: "NOT_FOUND")
        }
    }
}

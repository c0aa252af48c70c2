// The demo origin through its HTTP handler, as the I/O layer calls it, without sockets.

import BreakwaterCore
import Foundation
import Synchronization
import Testing

@testable import BreakwaterDemoOrigin

@Suite struct DemoOriginTests {
    // MARK: Launches

    @Test func launchesPagesNewestFirstAndFollowsCursorsToTheEnd() async throws {
        let origin = DemoOrigin(testControls: false)
        var ids: [String] = []
        var after: String? = nil
        var pages = 0
        repeat {
            let page = try await graphQL(
                origin,
                "query Page($after: String) { launches(pageSize: 30, after: $after) { cursor hasMore launches { id } } }",
                variables: after.map { ["after": $0] } ?? [:]
            ).data("launches")
            let launchIDs = try #require(page["launches"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            ids += launchIDs
            #expect(page["cursor"] as? String == launchIDs.last)
            after = (page["hasMore"] as? Bool == true) ? launchIDs.last : nil
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 4)
        #expect(ids == (1...100).reversed().map(String.init))
    }

    @Test func launchesDefaultToPagesOfTwenty() async throws {
        let page = try await graphQL(DemoOrigin(testControls: false), "{ launches { cursor hasMore launches { id } } }")
            .data("launches")
        #expect((page["launches"] as? [Any])?.count == 20)
        #expect(page["cursor"] as? String == "81")
        #expect(page["hasMore"] as? Bool == true)
    }

    @Test func launchByIDWithVariablesAnswersTheComputedLaunch() async throws {
        let answer = try await graphQL(
            DemoOrigin(testControls: false),
            "query GetLaunch($id: ID!) { launch(id: $id) { id site rocket { id name type } mission { name missionPatch } isBooked } }",
            operationName: "GetLaunch", variables: ["id": "60"]
        )
        #expect(answer.status == 200)
        #expect(answer.headers["Content-Type"] == "application/json")
        #expect(
            answer.text == #"{"data":{"launch":{"id":"60","site":"KSC LC 39A","rocket":{"id":"falconheavy","#
                + #""name":"Falcon Heavy","type":"FT"},"mission":{"name":"Starlink-6","#
                + #""missionPatch":"https://patches.example.com/launches/60/large.png"},"isBooked":false}}}"#
        )
    }

    @Test func missionPatchSizeDefaultsToLarge() async throws {
        let launch = try await graphQL(
            DemoOrigin(testControls: false),
            #"{ launch(id: 7) { mission { large: missionPatch small: missionPatch(size: SMALL) } } }"#
        ).data("launch")
        let mission = try #require(launch["mission"] as? [String: Any])
        #expect(mission["large"] as? String == "https://patches.example.com/launches/7/large.png")
        #expect(mission["small"] as? String == "https://patches.example.com/launches/7/small.png")
    }

    @Test(arguments: ["0", "101", "abc", "060"])
    func unknownLaunchIsNull(id: String) async throws {
        let answer = try await graphQL(
            DemoOrigin(testControls: false), "query ($id: ID!) { launch(id: $id) { id } }", variables: ["id": id]
        )
        #expect(answer.text == #"{"data":{"launch":null}}"#)
    }

    // MARK: Users and bookings

    @Test func meIsNullWithoutAuthorization() async throws {
        let answer = try await graphQL(DemoOrigin(testControls: false), "{ me { email } }")
        #expect(answer.text == #"{"data":{"me":null}}"#)
    }

    @Test(arguments: ["ada@example.com", "YWRhQGV4YW1wbGUuY29t", "Bearer YWRhQGV4YW1wbGUuY29t"])
    func meIsTheUserTheAuthorizationHeaderNames(authorization: String) async throws {
        let me = try await graphQL(
            DemoOrigin(testControls: false), "{ me { id email } }", headers: ["Authorization": authorization]
        ).data("me")
        #expect(me["email"] as? String == "ada@example.com")
        #expect((me["id"] as? String)?.hasPrefix("user-") == true)
    }

    @Test func loginAnswersATokenThatSignsIn() async throws {
        let origin = DemoOrigin(testControls: false)
        let token = try await graphQL(origin, #"mutation { login(email: "grace@example.com") }"#).data()["login"]
        let me = try await graphQL(
            origin, "{ me { email } }", headers: ["Authorization": try #require(token as? String)]
        )
        .data("me")
        #expect(me["email"] as? String == "grace@example.com")
    }

    @Test func bookedTripsShowForTheirUserOnly() async throws {
        let origin = DemoOrigin(testControls: false)
        let ada: HTTPHeaders = ["Authorization": "ada@example.com"]
        let booked = try await graphQL(
            origin,
            "mutation Book($ids: [ID]!) { bookTrips(launchIds: $ids) { success message launches { id isBooked } } }",
            variables: ["ids": ["60", "61"]], headers: ada
        ).data("bookTrips")
        #expect(booked["success"] as? Bool == true)
        #expect(booked["message"] as? String == "trips booked successfully")
        #expect((booked["launches"] as? [[String: Any]])?.map { $0["isBooked"] as? Bool } == [true, true])

        let query = #"{ launch(id: "60") { isBooked } me { trips { id } } }"#
        let forAda = try await graphQL(origin, query, headers: ada)
        #expect(forAda.text == #"{"data":{"launch":{"isBooked":true},"me":{"trips":[{"id":"60"},{"id":"61"}]}}}"#)
        let forGrace = try await graphQL(origin, query, headers: ["Authorization": "grace@example.com"])
        #expect(forGrace.text == #"{"data":{"launch":{"isBooked":false},"me":{"trips":[]}}}"#)
        let anonymous = try await graphQL(origin, query)
        #expect(anonymous.text == #"{"data":{"launch":{"isBooked":false},"me":null}}"#)

        let cancelled = try await graphQL(
            origin, #"mutation { cancelTrip(launchId: "60") { success message launches { id isBooked } } }"#,
            headers: ada
        )
        #expect(
            cancelled.text
                == #"{"data":{"cancelTrip":{"success":true,"message":"trip cancelled","launches":[{"id":"60","isBooked":false}]}}}"#
        )
        let again = try await graphQL(origin, #"mutation { cancelTrip(launchId: "60") { success } }"#, headers: ada)
        #expect(again.text == #"{"data":{"cancelTrip":{"success":false}}}"#)
    }

    @Test func concurrentBookingsAllLand() async throws {
        let origin = DemoOrigin(testControls: true)
        let ada: HTTPHeaders = ["Authorization": "ada@example.com"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 1...50 {
                group.addTask {
                    let answer = try await graphQL(
                        origin, "mutation ($id: ID!) { bookTrips(launchIds: [$id]) { success } }",
                        variables: ["id": String(id)], headers: ada
                    )
                    #expect(answer.text == #"{"data":{"bookTrips":{"success":true}}}"#)
                }
            }
            try await group.waitForAll()
        }
        let trips = try await graphQL(origin, "{ me { trips { id } } }", headers: ada).data("me")["trips"]
        #expect(Set((trips as? [[String: String]] ?? []).compactMap { $0["id"] }) == Set((1...50).map(String.init)))
        let counters = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters")).json
        #expect(counters["requests"] as? Int == 51)
    }

    @Test func bookingUnknownLaunchesReportsThem() async throws {
        let booked = try await graphQL(
            DemoOrigin(testControls: false), #"mutation { bookTrips(launchIds: ["5", "500"]) { success message } }"#,
            headers: ["Authorization": "ada@example.com"]
        ).data("bookTrips")
        #expect(booked["success"] as? Bool == false)
        #expect(booked["message"] as? String == "the following launches couldn't be booked: 500")
    }

    @Test func bookingWithoutAuthorizationFails() async throws {
        let booked = try await graphQL(
            DemoOrigin(testControls: false), #"mutation { bookTrips(launchIds: ["5"]) { success } }"#
        ).data("bookTrips")
        #expect(booked["success"] as? Bool == false)
    }

    // MARK: Request errors

    @Test func unparsableDocumentIs400WithTheParserMessage() async throws {
        let answer = try await graphQL(DemoOrigin(testControls: false), "{ launches { ")
        #expect(answer.status == 400)
        let error = try answer.firstError()
        #expect((error["message"] as? String)?.hasPrefix("Syntax Error") == true)
        #expect((error["locations"] as? [[String: Int]])?.first == ["line": 1, "column": 14])
        #expect((error["extensions"] as? [String: String])?["code"] == "GRAPHQL_PARSE_FAILED")
        #expect(answer.json["data"] == nil)
    }

    @Test func invalidDocumentIs400WithValidationMessages() async throws {
        let answer = try await graphQL(DemoOrigin(testControls: false), "{ launches { nope } }")
        #expect(answer.status == 400)
        let error = try answer.firstError()
        #expect((error["message"] as? String)?.contains("nope") == true)
        #expect((error["extensions"] as? [String: String])?["code"] == "GRAPHQL_VALIDATION_FAILED")
    }

    @Test(arguments: [
        "not json", "[1]", #"{"variables":{}}"#, #"{"query":""}"#, #"{"query":"{ me { id } }","variables":[1]}"#,
        #"{"query":"{ me { id } }","variables":"{}"}"#, #"{"query":"{ me { id } }","operationName":3}"#,
    ])
    func malformedBodyIs400(body: String) async throws {
        let answer = try await send(DemoOrigin(testControls: false), post(body: body))
        #expect(answer.status == 400)
        #expect((try answer.firstError()["extensions"] as? [String: String])?["code"] == "BAD_REQUEST")
    }

    @Test func unknownOperationNameIs400() async throws {
        let answer = try await graphQL(DemoOrigin(testControls: false), "query A { me { id } }", operationName: "B")
        #expect(answer.status == 400)
        #expect(try answer.firstError()["message"] as? String == #"Unknown operation named "B"."#)
    }

    @Test func wrongVariableTypeIs400() async throws {
        let answer = try await graphQL(
            DemoOrigin(testControls: false), "query ($n: Int) { launches(pageSize: $n) { cursor } }",
            variables: ["n": "three"]
        )
        #expect(answer.status == 400)
        #expect(answer.json["data"] == nil)
    }

    @Test func otherMethodsAre405() async throws {
        let answer = try await send(DemoOrigin(testControls: false), HTTPRequest(method: "PUT", target: "/graphql"))
        #expect(answer.status == 405)
        #expect(answer.headers["Allow"] == "GET, POST")
    }

    // MARK: GET

    @Test func getWithURLEncodedParametersIsServed() async throws {
        let query = "query GetLaunch($id: ID!) { launch(id: $id) { id site } }"
        let target = "/graphql?" + form(["query": query, "operationName": "GetLaunch", "variables": #"{"id":"60"}"#])
        let answer = try await send(DemoOrigin(testControls: false), HTTPRequest(method: "GET", target: target))
        #expect(answer.status == 200)
        #expect(answer.text == #"{"data":{"launch":{"id":"60","site":"KSC LC 39A"}}}"#)
    }

    @Test func getAcceptsPlusForSpaceAndEmptyParameters() async throws {
        let target = "/graphql?query=%7B+launch(id%3A+1)+%7B+id+%7D+%7D&operationName=&variables="
        let answer = try await send(DemoOrigin(testControls: false), HTTPRequest(method: "GET", target: target))
        #expect(answer.text == #"{"data":{"launch":{"id":"1"}}}"#)
    }

    @Test func mutationOverGetIs405() async throws {
        let target = "/graphql?" + form(["query": #"mutation { login(email: "a@b.c") }"#])
        let answer = try await send(DemoOrigin(testControls: false), HTTPRequest(method: "GET", target: target))
        #expect(answer.status == 405)
        #expect(answer.headers["Allow"] == "POST")
    }

    // MARK: Test-only fields

    @Test func slowAnswersAfterItsDelay() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let answer = try await graphQL(DemoOrigin(testControls: false), "{ slow(ms: 50) }")
        #expect(clock.now - start >= .milliseconds(50))
        #expect(answer.text == #"{"data":{"slow":"slow"}}"#)
    }

    @Test func boomIsNullWithAnError() async throws {
        let answer = try await graphQL(DemoOrigin(testControls: false), "{ launch(id: 1) { id } boom }")
        #expect(answer.status == 200)
        #expect(
            answer.text
                == #"{"data":{"launch":{"id":"1"},"boom":null},"errors":[{"message":"boom","locations":[{"line":1,"column":24}],"path":["boom"]}]}"#
        )
    }

    // MARK: Determinism

    @Test func sameRequestGivesSameBytes() async throws {
        let query =
            "{ launches(pageSize: 10) { cursor hasMore launches { id site mission { name missionPatch } rocket { id name type } isBooked } } boom }"
        let first = try await graphQL(DemoOrigin(testControls: false), query)
        let second = try await graphQL(DemoOrigin(testControls: false), query)
        let third = try await graphQL(DemoOrigin(testControls: true), query)
        #expect(first.body == second.body)
        #expect(first.body == third.body)
        #expect(first.headers == second.headers)
    }

    @Test func graphQLAnswersCarryNoCacheHeadersByDefault() async throws {
        let answer = try await graphQL(DemoOrigin(testControls: true), "{ launch(id: 1) { id } }")
        #expect(answer.headers["Cache-Control"] == nil)
        #expect(answer.headers["Set-Cookie"] == nil)
    }

    // MARK: Test controls

    @Test func countersCountGraphQLRequests() async throws {
        let origin = DemoOrigin(testControls: true)
        _ = try await graphQL(
            origin, "query GetLaunches { launches { cursor } }", headers: ["X-Trace": "a", "x-trace": "b"])
        _ = try await graphQL(origin, "query GetLaunches { launches { cursor } }", operationName: "GetLaunches")
        _ = try await send(origin, HTTPRequest(method: "GET", target: "/graphql?" + form(["query": "{ me { id } }"])))
        _ = try await send(origin, post(body: "not json"))
        let counters = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters"))
        #expect(counters.status == 200)
        #expect(counters.json["requests"] as? Int == 4)
        #expect(counters.json["byOperation"] as? [String: Int] == ["GetLaunches": 2, "(anonymous)": 2])
        #expect(counters.json["byMethod"] as? [String: Int] == ["GET": 1, "POST": 3])
        #expect(counters.json["lastQuery"] is NSNull)
        #expect(counters.json["lastHeaders"] as? [String: String] == ["content-type": "application/json"])

        _ = try await graphQL(origin, "{ me { id } }", headers: ["X-Trace": "a", "x-trace": "b"])
        let after = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters")).json
        #expect(after["lastQuery"] as? String == "{ me { id } }")
        #expect(after["lastHeaders"] as? [String: String] == ["content-type": "application/json", "x-trace": "a, b"])
    }

    @Test func countersAreBytesInAFixedOrder() async throws {
        let origin = DemoOrigin(testControls: true)
        let counters = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters"))
        #expect(
            counters.text
                == #"{"requests":0,"byOperation":{},"byMethod":{"GET":0,"POST":0},"lastQuery":null,"lastHeaders":{},"samplingFetches":0,"samplingPeakPerSecond":0}"#
        )
    }

    @Test func resetZeroesCountersAndClearsFaults() async throws {
        let origin = DemoOrigin(testControls: true)
        _ = try await graphQL(origin, "{ me { id } }")
        try await setFaults(origin, #"{"status":503,"cacheControl":"public, max-age=30"}"#)
        let reset = try await send(origin, HTTPRequest(method: "POST", target: "/_demo/reset"))
        #expect(reset.text == #"{"ok":true}"#)
        let counters = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters")).json
        #expect(counters["requests"] as? Int == 0)
        let answer = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(answer.status == 200)
        #expect(answer.headers["Cache-Control"] == nil)
    }

    @Test func forcedStatusAnswersAnHTMLPage() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"status":500,"statusBody":"html"}"#)
        let answer = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(answer.status == 500)
        #expect(answer.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(answer.text.contains("<h1>500 Internal Server Error</h1>"))
        let counters = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters")).json
        #expect(counters["requests"] as? Int == 1)
    }

    @Test func forcedStatusAnswersJSONErrors() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"status":502,"statusBody":"json"}"#)
        let answer = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(answer.status == 502)
        #expect(answer.headers["Content-Type"] == "application/json")
        #expect(answer.text == #"{"errors":[{"message":"forced"}]}"#)
    }

    @Test func cacheControlAndSetCookieFaultsAddHeaders() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"cacheControl":"public, max-age=30","setCookie":"a=b"}"#)
        let answer = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(answer.status == 200)
        #expect(answer.headers["Cache-Control"] == "public, max-age=30")
        #expect(answer.headers["Set-Cookie"] == "a=b")
        try await setFaults(origin, #"{"setCookie":null}"#)
        let later = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(later.headers["Cache-Control"] == "public, max-age=30")
        #expect(later.headers["Set-Cookie"] == nil)
        let faults = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/faults"))
        #expect(
            faults.text
                == #"{"cacheControl":"public, max-age=30","setCookie":null,"vary":null,"status":null,"statusBody":"json","close":false,"delayMs":0,"introspectionStatus":null}"#
        )
    }

    @Test func introspectionStatusFaultAnswersOnlyTheProxysIntrospection() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"introspectionStatus":503,"statusBody":"html"}"#)
        let introspection = try await send(
            origin,
            post(
                body: #"{"query":"query BreakwaterIntrospection { __schema { queryType { name } } }","#
                    + #""operationName":"BreakwaterIntrospection"}"#))
        #expect(introspection.status == 503)
        let client = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(client.status == 200)
        try await setFaults(origin, #"{"introspectionStatus":null}"#)
        let later = try await send(
            origin,
            post(
                body: #"{"query":"query BreakwaterIntrospection { __schema { queryType { name } } }","#
                    + #""operationName":"BreakwaterIntrospection"}"#))
        #expect(later.status == 200)
    }

    @Test func closeFaultDropsTheConnection() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"close":true}"#)
        let outcome = await deliver(origin, post(body: #"{"query":"{ me { id } }"}"#))
        #expect(outcome == .closed)
        let counters = try await send(origin, HTTPRequest(method: "GET", target: "/_demo/counters")).json
        #expect(counters["requests"] as? Int == 1)
    }

    @Test func delayFaultHoldsTheAnswer() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"delayMs":40}"#)
        let clock = ContinuousClock()
        let start = clock.now
        let answer = try await graphQL(origin, "{ launch(id: 1) { id } }")
        #expect(clock.now - start >= .milliseconds(40))
        #expect(answer.status == 200)
    }

    @Test(arguments: [
        #"{"status":"500"}"#, #"{"statusBody":"xml"}"#, #"{"bogus":1}"#, "not json", #"{"status":99}"#,
        #"{"introspectionStatus":700}"#,
    ])
    func badFaultsAre400AndChangeNothing(body: String) async throws {
        let origin = DemoOrigin(testControls: true)
        let answer = try await send(
            origin, HTTPRequest(method: "POST", target: "/_demo/faults", body: Array(body.utf8)))
        #expect(answer.status == 400)
        #expect(origin.controls.faults == DemoFaults())
    }

    @Test func resetKeyInAFaultsBodyClearsTheOtherKnobsFirst() async throws {
        let origin = DemoOrigin(testControls: true)
        try await setFaults(origin, #"{"status":500,"setCookie":"a=b"}"#)
        try await setFaults(origin, #"{"reset":true,"cacheControl":"no-store"}"#)
        #expect(origin.controls.faults == DemoFaults(cacheControl: "no-store"))
    }

    @Test(arguments: ["/_demo/counters", "/_demo/faults"])
    func controlsAre404WithoutTestControls(path: String) async throws {
        let origin = DemoOrigin(testControls: false)
        let get = try await send(origin, HTTPRequest(method: "GET", target: path))
        #expect(get.status == 404)
        let post = try await send(
            origin, HTTPRequest(method: "POST", target: path, body: Array(#"{"status":500}"#.utf8)))
        #expect(post.status == 404)
        #expect(try await graphQL(origin, "{ launch(id: 1) { id } }").status == 200)
    }

    @Test func unknownPathsAre404() async throws {
        let origin = DemoOrigin(graphqlPath: "/api", testControls: true)
        #expect(try await send(origin, HTTPRequest(method: "POST", target: "/graphql")).status == 404)
        #expect(try await send(origin, HTTPRequest(method: "GET", target: "/_demo/nope")).status == 404)
        #expect(try await graphQL(origin, "{ launch(id: 1) { id } }", path: "/api").status == 200)
    }

    // MARK: CLI

    @Test func curlExamplesTargetTheProxy() {
        let lines = DemoOrigin.curlExamples(proxyURL: "http://127.0.0.1:8080/graphql")
        #expect(lines.count == 3)
        #expect(
            lines.allSatisfy {
                $0.hasPrefix("curl -si http://127.0.0.1:8080/graphql -H 'Content-Type: application/json'")
            })
        #expect(
            lines[0].contains("query GetLaunches { launches(pageSize: 3) { launches { id site mission { name } } } }"))
        #expect(lines[1].contains(#""variables":{"id":"60"}"#))
        #expect(lines[2].contains("Authorization: ZGVtb0BleGFtcGxlLmNvbQ=="))
    }

    @Test func curlExampleBodiesAreServed() async throws {
        let origin = DemoOrigin(testControls: false)
        for line in DemoOrigin.curlExamples(proxyURL: "http://x/graphql") {
            let body = try #require(line.split(separator: "-d '").last?.dropLast())
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if line.contains("Authorization") {
                headers.add("Authorization", LaunchesContext.token(email: DemoOrigin.demoEmail))
            }
            let answer = try await send(
                origin, HTTPRequest(method: "POST", target: "/graphql", headers: headers, body: Array(body.utf8)))
            #expect(answer.status == 200, "\(line)")
            #expect(answer.json["errors"] == nil, "\(line)")
        }
    }
}

// MARK: - Helpers

/// What the handler did with the connection.
private enum Outcome: Sendable, Equatable {
    case response(HTTPResponse)
    case closed

    static func == (lhs: Outcome, rhs: Outcome) -> Bool {
        switch (lhs, rhs) {
        case (.closed, .closed): true
        case (.response(let a), .response(let b)): a.status == b.status && a.headers == b.headers && a.body == b.body
        default: false
        }
    }
}

/// Resumes the test with the first answer; later calls are recorded so a double answer fails.
private final class CapturingResponder: HTTPResponder {
    private let continuation: Mutex<CheckedContinuation<Outcome, Never>?>

    init(_ continuation: CheckedContinuation<Outcome, Never>) { self.continuation = Mutex(continuation) }

    func respond(_ response: HTTPResponse) { finish(.response(response)) }

    func closeConnection() { finish(.closed) }

    private func finish(_ outcome: Outcome) {
        let pending = continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }
        #expect(pending != nil, "answered twice")
        pending?.resume(returning: outcome)
    }
}

/// A response with its body decoded, for assertions.
private struct Answer {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
    }

    /// `data`, or `data.<field>` as an object; fails the test when absent.
    func data(_ field: String? = nil) throws -> [String: Any] {
        let data = try #require(json["data"] as? [String: Any], "no data in \(text)")
        guard let field else { return data }
        return try #require(data[field] as? [String: Any], "no data.\(field) in \(text)")
    }

    func firstError() throws -> [String: Any] {
        try #require((json["errors"] as? [[String: Any]])?.first, "no errors in \(text)")
    }
}

private func deliver(_ origin: DemoOrigin, _ request: HTTPRequest) async -> Outcome {
    await withCheckedContinuation { continuation in
        origin.handle(request, responder: CapturingResponder(continuation))
    }
}

private func send(_ origin: DemoOrigin, _ request: HTTPRequest) async throws -> Answer {
    guard case .response(let response) = await deliver(origin, request) else {
        Issue.record("connection closed without an answer")
        throw CancellationError()
    }
    return Answer(status: response.status, headers: response.headers, body: response.body)
}

private func post(body: String, path: String = "/graphql", headers: HTTPHeaders = [:]) -> HTTPRequest {
    var all: HTTPHeaders = ["Content-Type": "application/json"]
    all.fields += headers.fields
    return HTTPRequest(method: "POST", target: path, headers: all, body: Array(body.utf8))
}

private func graphQL(
    _ origin: DemoOrigin, _ query: String, operationName: String? = nil, variables: [String: Any] = [:],
    headers: HTTPHeaders = [:], path: String = "/graphql"
) async throws -> Answer {
    var object: [String: Any] = ["query": query, "variables": variables]
    if let operationName { object["operationName"] = operationName }
    let body = try JSONSerialization.data(withJSONObject: object)
    return try await send(origin, post(body: String(decoding: body, as: UTF8.self), path: path, headers: headers))
}

private func setFaults(_ origin: DemoOrigin, _ body: String) async throws {
    let answer = try await send(origin, HTTPRequest(method: "POST", target: "/_demo/faults", body: Array(body.utf8)))
    #expect(answer.text == #"{"ok":true}"#)
}

/// URL-encodes GET parameters the way browsers and Apollo Client do.
private func form(_ parameters: KeyValuePairs<String, String>) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return parameters.map { name, value in
        "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
    }.joined(separator: "&")
}

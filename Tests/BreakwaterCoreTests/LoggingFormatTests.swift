// Log-line rendering and request identity, in-process: timestamps, text and JSON records, the
// access-log entry, error codes read from answer bodies, request ids.

import Foundation
import Testing

@testable import BreakwaterCore
import BreakwaterFixtures

@Suite struct LoggingFormatTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_795_449_845_123, "2026-11-23T16:04:05.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"),
        (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
    ])
    func timestampsAreRFC3339InUTC(milliseconds: Int64, expected: String) {
        #expect(LogTimestamp(millisecondsSinceEpoch: milliseconds).rfc3339 == expected)
    }

    @Test func timestampsAgreeWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let milliseconds = Int64.random(in: 0...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(LogTimestamp(millisecondsSinceEpoch: milliseconds).rfc3339 == formatter.string(from: date))
        }
    }

    static let record = LogLineFormat.Record(
        time: LogTimestamp(millisecondsSinceEpoch: 0), level: "warning", label: "breakwater.origin",
        message: "origin failed\nsecond line", fields: [("reason", "connection refused"), ("operation", "Get\"X"), ("message", "x")])

    @Test func typedFieldsStayNumbersBooleansAndNullInJSON() throws {
        let record = LogLineFormat.Record(
            time: LogTimestamp(millisecondsSinceEpoch: 0), level: "notice", label: "breakwater", message: "purge",
            fields: [
                ("purged", LogValue(4)), ("soft", .bool(false)), ("origin_status", .null),
                ("shutdown_delay_s", LogValue(seconds: .milliseconds(1500))), ("what", "4"),
            ])
        let line = LogLineFormat.line(record, format: .json)
        #expect(line.contains(#""purged":4,"soft":false,"origin_status":null,"shutdown_delay_s":1.5,"what":"4""#), "\(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["purged"] as? Int == 4)
        #expect(object.keys.contains("origin_status") && object["origin_status"] is NSNull)
        #expect(object["what"] as? String == "4", "a string that looks like a number stays a string")
        #expect(LogLineFormat.line(record, format: .text).hasSuffix(" purged=4 soft=false origin_status=- shutdown_delay_s=1.5 what=4"))
        #expect(LogValue(Double.nan) == .null)
        #expect(LogValue(seconds: .seconds(10)) == .number("10"))
    }

    @Test func jsonRecordIsOneObjectWithFieldsAsMembers() throws {
        let line = LogLineFormat.line(Self.record, format: .json)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "warning")
        #expect(object["logger"] as? String == "breakwater.origin")
        #expect(object["message"] as? String == "origin failed\nsecond line", "a field cannot overwrite the message")
        #expect(object["reason"] as? String == "connection refused")
        #expect(object["operation"] as? String == "Get\"X")
        #expect(object["time"] as? String == "1970-01-01T00:00:00.000Z")
    }

    @Test func textRecordIsOneLineWithQuotedValuesWhereNeeded() {
        let line = LogLineFormat.line(Self.record, format: .text)
        #expect(
            line == #"1970-01-01T00:00:00.000Z warning breakwater.origin: origin failed\nsecond line reason="connection refused" operation="Get\"X" message=x"#
        )
    }

    static let entry = LogFixture.accessEntry

    @Test func accessEntryJSONHoldsEveryField() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.entry.line(.json).utf8)) as? [String: Any])
        #expect(object["client"] as? String == "10.0.0.1")
        #expect(object["cache"] as? String == "HIT")
        #expect(object["hash"] as? String == String(repeating: "ab", count: 32))
        #expect(object["duration_ms"] as? Double == 0.412)
        #expect(object["origin_status"] is NSNull)
        #expect(object["error_code"] is NSNull)
        #expect((object["user_agent"] as? String)?.count == AccessLogEntry.maxTextBytes, "bounded")
        #expect(object["client_name"] as? String == "ios")
        #expect(object["client_version"] is NSNull)
    }

    @Test func accessEntryTextIsKeyValuePairs() {
        let line = Self.entry.line(.text)
        #expect(line.hasPrefix("1970-01-01T00:00:00.000Z access: client=10.0.0.1 method=GET protocol=HTTP/1.1 status=200 cache=HIT"))
        #expect(line.contains(" duration_ms=0.412 origin_status=- origin_ms=- bytes=1234 request_id=r-1 "))
    }

    @Test func errorCodeIsReadFromOwnErrorBodies() {
        let notFound = GraphQLErrorResponse(status: 200, message: "PersistedQueryNotFound", code: "PERSISTED_QUERY_NOT_FOUND")
        #expect(AnswerErrorCode.code(in: notFound.body) == "PERSISTED_QUERY_NOT_FOUND")
        #expect(AnswerErrorCode.code(in: Array(#"{"data":{"code":"X"}}"#.utf8)) == nil)
        let tricky = GraphQLErrorResponse(status: 400, message: #"bad "code":"EVIL" here"#, code: "BAD_REQUEST")
        #expect(AnswerErrorCode.code(in: tricky.body) == "BAD_REQUEST")
        #expect(AnswerErrorCode.code(in: []) == nil)
    }

    /// What the statistics and the access log record: the flow's code first; the body's only for
    /// answers the flow did not make (no `X-Cache`), never for an origin's answer it relayed.
    @Test func recordedErrorCodeIsTheFlowsOwnElseAnEngineAnswersBody() {
        let refusal = GraphQLErrorResponse(status: 431, message: "headers too large", code: "REQUEST_HEADER_FIELDS_TOO_LARGE")
        #expect(FlowReply(response: refusal.response).recordedErrorCode == "REQUEST_HEADER_FIELDS_TOO_LARGE")
        #expect(FlowReply(response: refusal.response, errorCode: "OTHER").recordedErrorCode == "OTHER")
        let relayed = HTTPResponse(status: 200, body: #"{"errors":[{"message":"m","extensions":{"code":"ORIGIN_SAID"}}]}"#)
        #expect(FlowReply(response: relayed, cache: .bypass).recordedErrorCode == nil)
        #expect(FlowReply(response: relayed, cache: .hit).recordedErrorCode == nil)
    }

    @Test(arguments: ["abc", "3f2a-01:z", "0af7651916cd43dd8448eb211c80319c", "a/b+c=", String(repeating: "x", count: 128)])
    func acceptableRequestIDs(id: String) {
        #expect(RequestIdentity.isAcceptable(id))
    }

    @Test(arguments: ["", "a b", "quote\"", "semi;", "tab\t", "é", String(repeating: "x", count: 129)])
    func unacceptableRequestIDs(id: String) {
        #expect(!RequestIdentity.isAcceptable(id))
    }

    @Test func generatedIDsAreHexAndDistinct() {
        var generator = RequestIDGenerator(seed: 7)
        let ids = (0..<10_000).map { _ in generator.next() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } })
    }

    /// The id is the generator's SplitMix64 stream in hex: two words, most significant digit first.
    @Test func generatedIDSpellsTheStreamInHex() {
        var generator = RequestIDGenerator(seed: 7)
        #expect(generator.next() == "63cbe1e459320dd7044c3cd7f43c661c")
        #expect(generator.next() == "e6984080bab12a02953aeb70673e29cb")
    }

    @Test func identityKeepsASaneIDAndReplacesOthers() {
        var generator = RequestIDGenerator(seed: 1)
        let kept = RequestIdentity(
            HTTPRequest(method: .get, target: "/", headers: ["X-Request-Id": "abc", "User-Agent": "curl"], remoteAddress: "1.2.3.4"),
            generator: &generator)
        #expect(kept.requestID == "abc")
        #expect(kept.userAgent == "curl")
        #expect(kept.remoteAddress == "1.2.3.4")
        let replaced = RequestIdentity(
            HTTPRequest(method: .get, target: "/", headers: ["X-Request-Id": "a b"]), generator: &generator)
        #expect(replaced.requestID.count == 32)
    }
}

@Suite struct BatchBodyTests {
    @Test func elementsKeepTheirExactBytes() throws {
        let body = Array(#" [ {"query":"{ a }"} , {"query":"{ b(s: \"],[{\") }","variables":{"x":[1,2]}} ] "#.utf8)
        #expect(BatchBody.isBatch(body))
        let elements = try BatchBody.elements(of: body, maxElements: 16)
        #expect(elements.map { String(decoding: $0, as: UTF8.self) } == [
            #"{"query":"{ a }"}"#, #"{"query":"{ b(s: \"],[{\") }","variables":{"x":[1,2]}}"#,
        ])
    }

    @Test(arguments: ["[]", "[ ]", "[{},]", "[,{}]", "[{}", "[{}] x", "[{}]]", "{}", "[{}}"])
    func malformedOrEmptyBatchesAreRefused(text: String) {
        #expect(throws: GraphQLErrorResponse.self) { try BatchBody.elements(of: Array(text.utf8), maxElements: 16) }
    }

    @Test func moreThanTheLimitIsRefused() throws {
        let three = Array("[{},{},{}]".utf8)
        #expect(try BatchBody.elements(of: three, maxElements: 3).count == 3)
        #expect(throws: GraphQLErrorResponse.self) { try BatchBody.elements(of: three, maxElements: 2) }
        #expect(!BatchBody.isBatch(Array(#"  {"query":"[]"}"#.utf8)))
    }
}

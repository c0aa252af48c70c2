// The purge body's forms and its errors.

import BreakwaterCore
import Testing

struct PurgeRequestTests {
    static let hash = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"

    @Test(arguments: [
        (#"{"all":true}"#, PurgeSelector.all, false),
        (#"{"operation":"GetLaunches"}"#, .operation("GetLaunches"), false),
        (#"{"operation":"GetLaunches","soft":true}"#, .operation("GetLaunches"), true),
        (#"{"type":"Launch","id":"92"}"#, .tag("Launch:92"), false),
        (#"{"type":"Launch","id":92,"soft":false}"#, .tag("Launch:92"), false),
        (#"{"type":"Launch"}"#, .tag("Launch"), false),
        (#"{"hash":"\#(hash.uppercased())"}"#, .document(SHA256Digest(hex: hash)!), false),
    ])
    func acceptedForms(body: String, selector: PurgeSelector, soft: Bool) throws {
        let request = try PurgeRequest.parse(Array(body.utf8))
        #expect(request == PurgeRequest(selector: selector, soft: soft))
    }

    @Test(arguments: [
        "", "[]", "{}", "not json", #"{"all":false}"#, #"{"all":true,"operation":"X"}"#, #"{"operation":""}"#,
        #"{"hash":"abc"}"#, #"{"id":"1"}"#, #"{"type":"Launch","id":[1]}"#, #"{"operation":"X","soft":"yes"}"#,
        #"{"operation":"X","extra":1}"#,
    ])
    func rejectedFormsAreBadRequests(body: String) {
        #expect(throws: GraphQLErrorResponse.self) { try PurgeRequest.parse(Array(body.utf8)) }
        do {
            _ = try PurgeRequest.parse(Array(body.utf8))
        } catch {
            #expect(error.status == 400)
        }
    }
}

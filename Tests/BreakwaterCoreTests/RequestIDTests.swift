// RequestID: a made id is written into a head as the same 32 hex digits it spells as a String,
// a client's id as it was sent, and an answer carries the id it was stamped with.

import BreakwaterCore
import Testing

struct RequestIDTests {
    private func written(_ id: RequestID) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: id.utf8Count) { buffer, count in
            count = id.write(at: buffer.baseAddress!)
        }
    }

    @Test func madeIDWritesTheDigitsItSpells() {
        var generator = RequestIDGenerator(seed: 7)
        let id = generator.nextID()
        #expect(id.text == "63cbe1e459320dd7044c3cd7f43c661c")
        #expect(id.utf8Count == 32)
        #expect(written(id) == Array(id.text.utf8))
    }

    @Test(arguments: ["r-1", "a-client-id-longer-than-fifteen-bytes:42"])
    func offeredIDIsWrittenAsSent(text: String) {
        let id = RequestID(text)
        #expect(id.text == text)
        #expect(id.utf8Count == text.utf8.count)
        #expect(written(id) == Array(text.utf8))
    }

    @Test func answerCarriesTheStampedID() {
        var generator = RequestIDGenerator(seed: 7)
        let id = generator.nextID()
        var response = HTTPResponse(status: 200, body: "{}")
        #expect(response.stampedIDCount == nil)
        response.stamp(id)
        #expect(response.stampedIDCount == 32)
        #expect(response.requestID == "63cbe1e459320dd7044c3cd7f43c661c")
        #expect(response.headerValue("x-request-id") == "63cbe1e459320dd7044c3cd7f43c661c")
        response.requestID = "r-2"
        #expect(response.stampedID == RequestID("r-2"))
    }
}

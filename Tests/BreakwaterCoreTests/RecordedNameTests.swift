// The recording rule for client-chosen names: only operations a document defines are counted,
// and operation and client names are cut to 128 bytes between characters wherever kept.

import BreakwaterCore
import Foundation
import Testing

@Suite struct RecordedNameTests {
    @Test func onlyTheResolvedOperationIsRecordedButTheLogMayNameTheRequestedOne() {
        #expect(RecordedName.operation(resolved: "GetLaunches") == "GetLaunches")
        #expect(RecordedName.operation(resolved: nil) == nil, "a name no document defines is never a row")
        #expect(RecordedName.loggedOperation(resolved: "GetLaunches", requested: "GetLaunches") == "GetLaunches")
        #expect(RecordedName.loggedOperation(resolved: nil, requested: "Missing") == "Missing")
        let long = String(repeating: "N", count: 60_000)
        #expect(RecordedName.loggedOperation(resolved: nil, requested: long)?.utf8.count == RecordedName.maxBytes)
        #expect(RecordedName.operation(resolved: long)?.utf8.count == RecordedName.maxBytes)
    }

    @Test(arguments: [1, 2, 3, 4])
    func namesAreCutBetweenCharacters(width: Int) {
        // A character of `width` UTF-8 bytes straddling the 128th byte is left out whole.
        let character = ["a", "é", "€", "😀"][width - 1]
        let name = String(repeating: "x", count: 126) + String(repeating: character, count: 3)
        let cut = RecordedName.cut(name)
        #expect(cut.utf8.count <= RecordedName.maxBytes && cut.utf8.count > RecordedName.maxBytes - width)
        #expect(name.hasPrefix(cut))
        #expect(String(validatingUTF8: Array(cut.utf8CString)) == cut, "no broken character")
        #expect(RecordedName.cut("short") == "short")
        let exact = String(repeating: "y", count: RecordedName.maxBytes)
        #expect(RecordedName.cut(exact) == exact)
    }

    @Test func statisticsKeepClientNamesCutAndTheAccessLogCutsNamesToo() throws {
        let long = String(repeating: "é", count: 100)  // 200 bytes
        var counters = ResponseCounters()
        counters.record(status: 200, errorCode: nil, clientName: long, clientVersion: long)
        #expect(counters.byClient.first?.name == RecordedName.cut(long))
        #expect(counters.byClient.first?.version == RecordedName.cut(long))
        let entry = AccessLogEntry(
            time: LogTimestamp(millisecondsSinceEpoch: 0), client: "10.0.0.1", method: .post, status: 400,
            operation: long, duration: .zero, bytes: 0, clientName: long, clientVersion: long)
        let line = Data(entry.line(.json).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        for key in ["operation", "client_name", "client_version"] {
            #expect(object[key] as? String == String(repeating: "é", count: 64), "\(key)")
        }
    }
}

// The takeover protocol: every message written and read back, lines fed every way bytes arrive,
// version agreement, and what a peer that is not Breakwater looks like.

import BreakwaterCore
import Testing

struct HandoverMessageTests {
    static let messages: [HandoverMessage] = [
        .hello(pid: 4242, versions: 1...3),
        .sockets(version: 1, pid: 17, graphql: 2, admin: 1),
        .ready(pid: 4242),
        .done(pid: 17),
        .refused(reason: "no common protocol version (this process speaks 1, the other 2)"),
    ]

    @Test(arguments: messages)
    func messageReadsBackAsWritten(message: HandoverMessage) throws {
        let line = message.encoded
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(try HandoverMessage.decode(String(decoding: line.dropLast(), as: UTF8.self)) == message)
    }

    @Test func linesAreWrittenInTheDocumentedForm() {
        #expect(
            String(decoding: HandoverMessage.hello(pid: 9, versions: 1...1).encoded, as: UTF8.self)
                == "breakwater-handover hello versions=1-1 pid=9\n")
        #expect(
            String(decoding: HandoverMessage.sockets(version: 1, pid: 17, graphql: 2, admin: 2).encoded, as: UTF8.self)
                == "breakwater-handover sockets version=1 pid=17 graphql=2 admin=2\n")
    }

    @Test func refusalReasonStaysOneLine() throws {
        let line = HandoverMessage.refused(reason: "first\nsecond").encoded
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try HandoverMessage.decode(String(decoding: line.dropLast(), as: UTF8.self)) == .refused(reason: "first second"))
    }

    @Test(arguments: ["HTTP/1.1 400 Bad Request", "", "SSH-2.0-OpenSSH_9.2", "breakwater-handoverhello"])
    func anotherServiceIsNotAHandoverPeer(line: String) {
        #expect(throws: HandoverProtocolError.notHandoverPeer) { try HandoverMessage.decode(line) }
    }

    @Test(arguments: [
        "breakwater-handover hello versions=2-1 pid=9",
        "breakwater-handover hello versions=1 pid=9",
        "breakwater-handover hello versions=1-1",
        "breakwater-handover sockets version=1 pid=0 graphql=1 admin=0",
        "breakwater-handover sockets version=1 pid=3 graphql=-1 admin=0",
        "breakwater-handover goodbye pid=3",
        "breakwater-handover ready pid",
        "breakwater-handover refused because",
    ])
    func malformedLinesAreRefused(line: String) {
        #expect(throws: HandoverProtocolError.malformed(line)) { try HandoverMessage.decode(line) }
    }

    @Test func linesAreFoundHoweverTheBytesArrive() throws {
        let bytes = Self.messages.flatMap(\.encoded)
        for size in [1, 2, 7, bytes.count] {
            var buffer = HandoverLineBuffer()
            var lines: [String] = []
            var at = 0
            while at < bytes.count {
                lines += try buffer.append(bytes[at..<min(at + size, bytes.count)])
                at += size
            }
            #expect(try lines.map { try HandoverMessage.decode($0) } == Self.messages)
        }
    }

    @Test func endlessLineIsNotAHandoverPeer() {
        var buffer = HandoverLineBuffer()
        #expect(throws: HandoverProtocolError.notHandoverPeer) {
            try buffer.append([UInt8](repeating: UInt8(ascii: "a"), count: HandoverMessage.maximumLength + 1))
        }
    }

    @Test(arguments: [
        (1...1, 1...1, 1), (1...3, 2...5, 3), (2...4, 1...2, 2), (1...1, 2...2, nil), (3...4, 1...2, nil),
    ] as [(ClosedRange<Int>, ClosedRange<Int>, Int?)])
    func versionsAgreeOnTheHighestBothSpeak(ours: ClosedRange<Int>, theirs: ClosedRange<Int>, agreed: Int?) {
        #expect(HandoverProtocol.agree(ours: ours, theirs: theirs) == agreed)
    }

    @Test func helloInAVersionWeDoNotSpeakIsRefused() {
        let answer = HandoverProtocol.answer(to: .hello(pid: 9, versions: 7...9), pid: 17, graphql: 2, admin: 2)
        #expect(answer == .refused(reason: "no common protocol version (this process speaks 1, the other 7-9)"))
    }

    @Test func helloInOurVersionGetsTheSockets() {
        let answer = HandoverProtocol.answer(to: .hello(pid: 9, versions: 1...4), pid: 17, graphql: 2, admin: 1)
        #expect(answer == .sockets(version: 1, pid: 17, graphql: 2, admin: 1))
    }

    @Test func anythingButHelloFirstIsRefused() {
        #expect(HandoverProtocol.answer(to: .ready(pid: 9), pid: 17, graphql: 1, admin: 1) == .refused(reason: "expected hello first"))
    }
}

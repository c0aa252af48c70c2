// The access log's byte-level line writer: the exact text and JSON lines, the cached
// per-second time, numbers and escaping agreeing with the String renderers they replace, and the
// per-loop buffers' batching and bound (a stalled writer drops and counts lines, never grows).

import Foundation
import Synchronization
import Testing

@testable import BreakwaterCore
@testable import BreakwaterServer
import BreakwaterFixtures

@Suite struct AccessLogLineTests {
    static let hash = SHA256Digest(hex: String(repeating: "0f", count: 32))!

    static let full = AccessLogEntry(
        time: LogTimestamp(millisecondsSinceEpoch: 1_795_449_845_123), client: "10.0.0.1", method: "POST", status: 502,
        cache: .miss, operation: "Get Launches", hash: hash, errorCode: "ORIGIN_UNREACHABLE", bypassReason: "too-large",
        duration: .nanoseconds(12_345_678), originStatus: 503, originDuration: .milliseconds(7), bytes: 98,
        requestID: "r-9", userAgent: "ua \"quoted\"\nnext", clientName: "web", clientVersion: "1.0=x")

    @Test func textLineHasEveryFieldInOrderQuotedWhereNeeded() {
        let expected = "2026-11-23T16:04:05.123Z access: client=10.0.0.1 method=POST protocol=HTTP/1.1 status=502 cache=MISS"
            + #" operation="Get Launches" hash="# + String(repeating: "0f", count: 32)
            + " error_code=ORIGIN_UNREACHABLE bypass_reason=too-large duration_ms=12.346 origin_status=503"
            + #" origin_ms=7 bytes=98 request_id=r-9 user_agent="ua \"quoted\"\nnext" client_name=web"#
            + #" client_version="1.0=x""#
        #expect(Self.full.line(.text) == expected)
    }

    @Test func jsonLineIsOneObjectWithEveryField() throws {
        let line = Self.full.line(.json)
        #expect(line.hasPrefix(#"{"time":"2026-11-23T16:04:05.123Z","type":"access","client":"10.0.0.1","#))
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object.count == 19)
        #expect(object["protocol"] as? String == "HTTP/1.1")
        #expect(object["operation"] as? String == "Get Launches")
        #expect(object["hash"] as? String == String(repeating: "0f", count: 32))
        #expect(object["error_code"] as? String == "ORIGIN_UNREACHABLE")
        #expect(object["bypass_reason"] as? String == "too-large")
        #expect(object["duration_ms"] as? Double == 12.346)
        #expect(object["origin_status"] as? Int == 503)
        #expect(object["origin_ms"] as? Double == 7)
        #expect(object["bytes"] as? Int == 98)
        #expect(object["user_agent"] as? String == "ua \"quoted\"\nnext")
        #expect(object["client_version"] as? String == "1.0=x")
    }

    @Test func longClientTextsAreCutAtACharacterBoundary() throws {
        // 255 ASCII bytes then a 2-byte character: the cut at 256 would split it, so it goes whole.
        let agent = String(repeating: "a", count: 255) + "é" + String(repeating: "b", count: 10)
        var entry = LogFixture.accessEntry
        entry.userAgent = agent
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
        #expect(object["user_agent"] as? String == String(repeating: "a", count: 255))
        #expect(entry.line(.text).contains(" user_agent=" + String(repeating: "a", count: 255) + " "))
    }

    @Test func cachedTimesAgreeWithTheTimestampText() {
        var random = SplitMix64(seed: 14)
        var cache = LogTimeCache()
        var milliseconds: Int64 = -3_000
        for _ in 0..<20_000 {
            // Mostly small steps (the same second again), sometimes a jump, sometimes backwards.
            switch random.next(below: 10) {
            case 0: milliseconds = Int64(random.next(below: 4_000_000_000)) * 1000 + Int64(random.next(below: 1000))
            case 1: milliseconds -= Int64(random.next(below: 2000))
            default: milliseconds += Int64(random.next(below: 300))
            }
            var out: [UInt8] = []
            cache.append(LogTimestamp(millisecondsSinceEpoch: milliseconds), to: &out)
            let expected = LogTimestamp(millisecondsSinceEpoch: milliseconds).rfc3339
            #expect(String(decoding: out, as: UTF8.self) == expected)
            if String(decoding: out, as: UTF8.self) != expected { return }
        }
    }

    @Test func millisecondsAgreeWithTheStatsRendering() {
        var random = SplitMix64(seed: 5)
        let fixed: [Duration] = [.zero, .nanoseconds(499), .nanoseconds(500), .microseconds(412), .milliseconds(1500),
                                 .nanoseconds(999_999_500), .seconds(3_600)]
        let randomOnes = (0..<5_000).map { _ in Duration.nanoseconds(Int64(random.next(below: 5_000_000_000))) }
        for duration in fixed + randomOnes {
            var out: [UInt8] = []
            LogLineBytes.appendMilliseconds(duration, to: &out)
            let (seconds, attoseconds) = duration.components
            let expected = DecimalText.string(Double(seconds) * 1000 + Double(attoseconds) * 1e-15, fractionDigits: 3)
            #expect(String(decoding: out, as: UTF8.self) == expected, "\(duration)")
        }
    }

    @Test(arguments: [0, 7, 10, 99, 100, 65_535, -1, -120, Int.max, Int.min])
    func decimalsAgreeWithSwift(value: Int) {
        var out: [UInt8] = []
        LogLineBytes.appendDecimal(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }

    /// Writes one piece through a ByteCursor, as the access log does.
    static func written(room: Int, _ write: (inout ByteCursor) -> Void) -> String {
        var buffer = LogLineBuffer(capacity: 16)
        var cursor = ByteCursor(buffer.reserve(room))
        write(&cursor)
        buffer.commit(upTo: cursor.position)
        return buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Strings of plain letters with, somewhere (also past the first eight bytes, where the scan
    /// reads words), a byte that must be escaped or that ends a plain word.
    static func mixedStrings(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let pieces: [String] = ["a", "Z", "0", "-", ".", " ", "\"", "\\", "=", "\n", "\t", "\u{1}", "\u{7F}", "é", "🚀", "~", "!"]
        return (0..<count).map { _ in
            let length = Int(random.next(below: 40))
            let special = Int(random.next(below: 4))
            return (0..<length).map { _ in
                Int(random.next(below: 4)) < special ? pieces[Int(random.next(below: pieces.count))] : "k"
            }.joined()
        }
    }

    @Test func jsonStringsAgreeWithTheJSONWriter() {
        for text in Self.mixedStrings(count: 3_000, seed: 21) + ["", "12345678", "1234567\"", "abcdefghijklmno\u{1F}"] {
            var expected: [UInt8] = []
            JSONWriter.quotedString(text, into: &expected)
            let got = Self.written(room: ByteCursor.logBound(of: text)) { $0.writeJSONString(text) }
            #expect(got == String(decoding: expected, as: UTF8.self), "\(text.debugDescription)")
            if got != String(decoding: expected, as: UTF8.self) { return }
        }
    }

    @Test func textValuesAreBareExactlyWhenOnePlainWord() {
        for text in Self.mixedStrings(count: 3_000, seed: 22) + ["", "12345678", "abcdefgh=", "abcdefghij\u{7F}"] {
            let plain = !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"\"\\=".utf8.contains($0) }
            var quoted: [UInt8] = []
            JSONWriter.quotedString(text, into: &quoted)
            let got = Self.written(room: ByteCursor.logBound(of: text)) { $0.writeTextValue(text) }
            #expect(got == (plain ? text : String(decoding: quoted, as: UTF8.self)), "\(text.debugDescription)")
            if got != (plain ? text : String(decoding: quoted, as: UTF8.self)) { return }
        }
    }

    @Test func hexDigitsAgreeWithTheDigest() {
        var random = SplitMix64(seed: 23)
        let edges = [SHA256Digest(words: (0, 0, 0, 0)), SHA256Digest(words: (.max, .max, .max, .max))]
        let digests = (0..<500).map { _ in
            SHA256Digest(words: (random.next(), random.next(), random.next(), random.next()))
        }
        for digest in edges + digests {
            #expect(Self.written(room: 64) { $0.writeHex(digest) } == digest.hex)
        }
    }

    /// A loop spells a digest's hex once and reuses it while the same hash comes again: a new
    /// hash, or an old one coming back, is spelled anew.
    @Test func theRememberedHexFollowsTheDigest() {
        var random = SplitMix64(seed: 24)
        let pool = (0..<3).map { _ in SHA256Digest(words: (random.next(), random.next(), random.next(), random.next())) }
        var memory = LogLineMemory()
        for index in [0, 0, 1, 0, 2, 2, 1, 0] {
            #expect(Self.written(room: 64) { memory.writeHex(pool[index], to: &$0) } == pool[index].hex)
        }
    }

    @Test func aBufferGivesBackRoomBeyondItsLimit() {
        var buffer = LogLineBuffer(capacity: 64)
        let huge = [UInt8](repeating: 0x61, count: 100_000)
        huge.withUnsafeBytes { buffer.append($0) }
        #expect(buffer.count == 100_000 && buffer.roomHeld >= 100_000)
        buffer.removeAll(keepingAtMost: 1 << 20)
        #expect(buffer.isEmpty && buffer.roomHeld >= 100_000, "under the limit: the room stays")
        huge.withUnsafeBytes { buffer.append($0) }
        buffer.removeAll(keepingAtMost: 4096)
        #expect(buffer.isEmpty && buffer.roomHeld == 4096)
        [UInt8]("ok".utf8).withUnsafeBytes { buffer.append($0) }
        #expect(buffer.withUnsafeBytes { Array($0) } == Array("ok".utf8))
    }

    /// A line reserves room for its longest form: every string field at its worst (all control
    /// bytes, each six bytes escaped), the line still fits and parses.
    @Test func aLineOfWorstCaseStringsFitsItsReservation() throws {
        let worst = String(repeating: "\u{1}", count: 300)
        var entry = Self.full
        entry.client = worst
        entry.operation = worst
        entry.requestID = worst
        entry.userAgent = worst
        entry.clientName = worst
        entry.clientVersion = worst
        let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
        #expect(object["operation"] as? String == String(worst.prefix(RecordedName.maxBytes)))
        #expect(object["client_name"] as? String == String(worst.prefix(RecordedName.maxBytes)))
        #expect((object["user_agent"] as? String)?.utf8.count == AccessLogEntry.maxTextBytes)
        var quoted: [UInt8] = []
        JSONWriter.quotedString(worst, into: &quoted)
        #expect(quoted.count == 6 * 300 + 2)
        #expect(entry.line(.text).contains(" request_id=" + String(decoding: quoted, as: UTF8.self) + " "))
    }

    @Test func theProtocolIsNamedAsTheRequestArrived() throws {
        var entry = LogFixture.accessEntry
        entry.version = .http2
        #expect(entry.line(.text).contains(" protocol=HTTP/2 status="))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
        #expect(object["protocol"] as? String == "HTTP/2")
    }

    /// Known methods and `X-Cache` values are written from literals: each must be its own token.
    @Test func methodsAndCacheValuesAreWrittenAsTheirTokens() throws {
        let methods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .options, .patch, .other("M-SEARCH"), .other("a b")]
        for method in methods {
            var entry = LogFixture.accessEntry
            entry.method = method
            let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
            #expect(object["method"] as? String == method.token)
            var plain: [UInt8] = []
            LogLineBytes.appendTextValue(method.token, to: &plain)
            #expect(entry.line(.text).contains(" method=\(String(decoding: plain, as: UTF8.self)) protocol=HTTP/1.1 status="))
        }
        for cache in XCache.allCases {
            var entry = LogFixture.accessEntry
            entry.cache = cache
            let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
            #expect(object["cache"] as? String == cache.headerValue)
            #expect(entry.line(.text).contains(" cache=\(cache.headerValue) operation="))
        }
    }

    /// A loop packs a record; the writer reads it back: every field, present or absent, and a
    /// method that is not one of the known ones, come back as they went in.
    @Test func aRecordGivesBackEveryField() throws {
        var bare = LogFixture.accessEntry
        bare.method = .other("M-SEARCH")
        bare.cache = nil
        bare.operation = nil
        bare.hash = nil
        bare.userAgent = nil
        bare.clientName = nil
        bare.duration = Duration(secondsComponent: 7_200, attosecondsComponent: 123_456_789_012_345_678)
        bare.originDuration = .zero
        bare.originStatus = 0
        var buffer = LogLineBuffer(capacity: 64)
        for entry in [Self.full, bare] { entry.appendRecord(to: &buffer, format: .text) }
        var read: [String] = []
        buffer.withUnsafeBytes { records in
            AccessLogRecord.forEach(in: records) { record in
                let text = { (bytes: UnsafeBufferPointer<UInt8>?) in bytes.map { String(decoding: $0, as: UTF8.self) } }
                read.append(
                    "\(record.format) \(record.time.millisecondsSinceEpoch) \(text(record.client) ?? "nil") "
                        + "\(record.method.map(\.token) ?? "other:" + (text(record.methodToken) ?? "nil")) \(record.status) "
                        + "\(record.cache?.headerValue ?? "nil") \(text(record.operation) ?? "nil") \(record.hash?.hex ?? "nil") "
                        + "\(text(record.errorCode) ?? "nil") \(text(record.bypassReason) ?? "nil") \(record.duration) "
                        + "\(record.originStatus.map(String.init) ?? "nil") \(record.originDuration.map { "\($0)" } ?? "nil") "
                        + "\(record.bytes) \(text(record.requestID) ?? "nil") \(text(record.userAgent)?.count ?? -1) "
                        + "\(text(record.clientName) ?? "nil") \(text(record.clientVersion) ?? "nil")")
            }
        }
        let full = Self.full
        #expect(read.count == 2)
        #expect(read.first == "text \(full.time.millisecondsSinceEpoch) 10.0.0.1 POST 502 MISS Get Launches \(Self.hash.hex) "
            + "ORIGIN_UNREACHABLE too-large \(full.duration) 503 \(full.originDuration!) 98 r-9 16 web 1.0=x")
        #expect(read.last == "text 0 10.0.0.1 other:M-SEARCH 200 nil nil nil nil nil \(bare.duration) 0 \(Duration.zero) 1234 r-1 -1 nil nil")
    }

    /// A freshness sampling fetch's line ends with what it found: `changed` (unknown without an
    /// answer to compare) and the stored answer's `age` in seconds; no other line has them.
    @Test func aSampleLineEndsWithChangedAndAge() throws {
        var entry = LogFixture.accessEntry
        entry.method = .other("SAMPLE")
        entry.sample = AccessLogRecord.Sample(changed: true, age: .milliseconds(12_345) + .microseconds(600))
        #expect(entry.line(.text).hasSuffix(" client_version=- changed=true age=12.346"), "\(entry.line(.text))")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
        #expect(object["method"] as? String == "SAMPLE")
        #expect(object["changed"] as? Bool == true)
        #expect(object["age"] as? Double == 12.346)
        #expect(object.count == 21)

        entry.sample = AccessLogRecord.Sample(changed: false, age: .seconds(3))
        #expect(entry.line(.text).hasSuffix(" changed=false age=3"))
        entry.sample = AccessLogRecord.Sample(changed: nil, age: .milliseconds(40))
        #expect(entry.line(.text).hasSuffix(" changed=- age=0.04"))
        object = try #require(try JSONSerialization.jsonObject(with: Data(entry.line(.json).utf8)) as? [String: Any])
        #expect(object["changed"] is NSNull)
        #expect(object["age"] as? Double == 0.04)

        // Read back from the record as packed, after a line without them.
        var buffer = LogLineBuffer(capacity: 64)
        LogFixture.accessEntry.appendRecord(to: &buffer, format: .text)
        entry.sample = AccessLogRecord.Sample(changed: true, age: .seconds(2))
        entry.appendRecord(to: &buffer, format: .json)
        var samples: [AccessLogRecord.Sample?] = []
        buffer.withUnsafeBytes { records in AccessLogRecord.forEach(in: records) { samples.append($0.sample) } }
        #expect(samples == [nil, AccessLogRecord.Sample(changed: true, age: .seconds(2))])
        #expect(!LogFixture.accessEntry.line(.text).contains("changed="))
    }

    /// A client's long text is cut when the loop packs it, so the record stays small.
    @Test func aRecordHoldsAtMostTheLimitOfAClientText() {
        var entry = LogFixture.accessEntry
        entry.userAgent = String(repeating: "u", count: 100_000)
        var buffer = LogLineBuffer(capacity: 64)
        entry.appendRecord(to: &buffer, format: .json)
        #expect(buffer.count < 1_000)
    }

    @Test func textValuesAgreeWithTheRecordFormat() {
        #expect(LogLineFormat.textValue("plain") == "plain")
        #expect(LogLineFormat.textValue("") == #""""#)
        #expect(LogLineFormat.textValue("a b") == #""a b""#)
        #expect(LogLineFormat.textValue("k=v") == #""k=v""#)
        #expect(LogLineFormat.textValue("tab\there") == #""tab\there""#)
        #expect(LogLineFormat.textValue("naïve") == #""naïve""#)
    }
}

@Suite struct ProxyAccessLogTests {
    static func logging(_ format: Configuration.LogFormat, _ destination: Configuration.AccessLogDestination = .stdout)
        -> Configuration.Logging
    {
        var logging = Configuration.Logging()
        logging.format = format
        logging.accessLog = destination
        return logging
    }

    /// What one take hands the writer: each loop's batch in loop order, the counts.
    static func take(_ log: ProxyAccessLog) -> (batches: [[UInt8]], lines: Int, dropped: Int) {
        var batches: [[UInt8]] = []
        let (lines, dropped) = log.take { batches.append(Array($0)) }
        return (batches, lines, dropped)
    }

    @Test func linesAreTakenWholeInLoopOrder() {
        let log = ProxyAccessLog(loopCount: 2, logging: Self.logging(.text))
        for index in 0..<3 {
            var entry = LogFixture.accessEntry
            entry.status = 200 + index
            log.buffers[index % 2].append(entry)
        }
        let (batches, lines, dropped) = Self.take(log)
        #expect(lines == 3 && dropped == 0)
        let loop0 = String(decoding: batches[0], as: UTF8.self).split(separator: "\n")
        let loop1 = String(decoding: batches[1], as: UTF8.self).split(separator: "\n")
        #expect(loop0.count == 2 && loop1.count == 1)
        #expect(loop0[0].contains(" status=200 ") && loop0[1].contains(" status=202 ") && loop1[0].contains(" status=201 "))
        #expect(batches.allSatisfy { $0.last == UInt8(ascii: "\n") })
        // Taken: the next take holds only what came after.
        log.buffers[0].append(LogFixture.accessEntry)
        let next = Self.take(log)
        #expect(next.lines == 1)
        #expect(String(decoding: next.batches[0], as: UTF8.self).split(separator: "\n").count == 1)
        #expect(next.batches[1].isEmpty)
    }

    /// The writer is woken only out of its parked sleep: while lines keep coming it polls, and no
    /// loop pays for a wake-up.
    @Test func aLineWakesTheWriterOnlyWhenItParked() {
        let log = ProxyAccessLog(loopCount: 2, logging: Self.logging(.text))
        let wakes = Atomic<Int>(0)
        log.attach { wakes.add(1, ordering: .relaxed) }
        log.buffers[0].append(LogFixture.accessEntry)
        #expect(wakes.load(ordering: .relaxed) == 1, "the writer starts parked")
        log.buffers[1].append(LogFixture.accessEntry)
        log.buffers[0].append(LogFixture.accessEntry)
        #expect(wakes.load(ordering: .relaxed) == 1, "awake: no second wake")
        #expect(!log.park(), "lines wait: the writer may not park")
        #expect(Self.take(log).lines == 3)
        #expect(log.park())
        log.buffers[1].append(LogFixture.accessEntry)
        #expect(wakes.load(ordering: .relaxed) == 2, "parked: the first line wakes it")
        log.buffers[1].append(LogFixture.accessEntry)
        #expect(wakes.load(ordering: .relaxed) == 2)
    }

    @Test func offWritesNothingAndAReloadTurnsItOnInTheNewFormat() throws {
        let log = ProxyAccessLog(loopCount: 1, logging: Self.logging(.json, .off))
        #expect(!log.buffers[0].isOn)
        log.buffers[0].append(LogFixture.accessEntry)
        #expect(Self.take(log).batches[0].isEmpty)
        log.apply(Self.logging(.json, .file("/tmp/x")))
        #expect(log.buffers[0].isOn)
        log.buffers[0].append(LogFixture.accessEntry)
        let object = try JSONSerialization.jsonObject(with: Data(Self.take(log).batches[0].dropLast())) as? [String: Any]
        #expect(object?["type"] as? String == "access")
    }

    /// A line is spelled in the format that was set when its request was answered, even when a
    /// reload changed it before the writer took the line.
    @Test func eachLineKeepsTheFormatOfItsAnswer() throws {
        let log = ProxyAccessLog(loopCount: 1, logging: Self.logging(.text))
        log.buffers[0].append(LogFixture.accessEntry)
        log.apply(Self.logging(.json))
        log.buffers[0].append(LogFixture.accessEntry)
        let lines = String(decoding: Self.take(log).batches[0], as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == Substring(LogFixture.accessEntry.line(.text)))
        #expect(lines[1] == Substring(LogFixture.accessEntry.line(.json)))
    }

    /// A writer that never takes (a blocked pipe, a stalled disk): the loop's buffer stops at the
    /// bound, every further line is counted as dropped, and the count reaches the writer.
    @Test func aStalledWriterCostsLinesNeverMemoryOrTime() {
        let log = ProxyAccessLog(loopCount: 1, logging: Self.logging(.json))
        let lineBytes = LogFixture.accessEntry.line(.json).utf8.count + 1
        // The bound is on what the loop holds: lines, spelled as they are logged.
        let fitting = (ProxyAccessLog.maxBufferedBytes + lineBytes - 1) / lineBytes
        let total = fitting + 5_000
        let started = ContinuousClock.now
        for _ in 0..<total { log.buffers[0].append(LogFixture.accessEntry) }
        let elapsed = ContinuousClock.now - started
        let (batches, lines, dropped) = Self.take(log)
        #expect(dropped == total - fitting)
        #expect(lines == fitting)
        #expect(batches[0].count == fitting * lineBytes)
        #expect(log.droppedLines == dropped)
        #expect(elapsed < .seconds(5), "appending never waits for the writer")
        // Once taken, lines are accepted again.
        log.buffers[0].append(LogFixture.accessEntry)
        let next = Self.take(log)
        #expect(next.dropped == 0)
        #expect(next.batches[0].count == lineBytes)
    }
}

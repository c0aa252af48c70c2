// RequestStatistics: what each record call counts, the hit ratio, the bound on operation names,
// and merging per-loop copies.

import BreakwaterCore
import Testing

struct StatsRecordingTests {
    @Test func eachCacheResultCountsOnceAndUndecidedRequestsOnlyInRequests() {
        var stats = RequestStatistics()
        for cache: RequestStatistics.CacheResult? in [.hit, .stale, .miss, .bypass, nil] {
            stats.recordRequest(operationName: "GetLaunches", cache: cache, duration: .milliseconds(1))
        }
        #expect(stats.requests == 5)
        #expect([stats.hits, stats.stale, stats.misses, stats.bypass] == [1, 1, 1, 1])
        #expect(stats.requestDurations.count == 5)
        let row = stats.operations["GetLaunches"]
        #expect(row?.requests == 5)
        #expect([row?.hits, row?.stale, row?.misses, row?.bypass] == [1, 1, 1, 1])
        #expect(row?.latency.count == 5)
    }

    @Test func requestsAreCountedByTheProtocolTheyArrivedOverAndMerged() {
        var first = RequestStatistics(), second = RequestStatistics()
        first.recordRequest(operationName: "Q", cache: .hit, duration: .zero, version: .http2)
        first.recordRequest(operationName: "Q", cache: .hit, duration: .zero)
        second.recordRequest(operationName: nil, cache: nil, duration: .zero, version: .http2)
        first.merge(second)
        #expect(first.requests == 3)
        #expect(first.http2Requests == 2)
    }

    @Test func hitRatioCountsStaleAsHitsAndLeavesBypassOut() {
        var stats = RequestStatistics()
        #expect(stats.hitRatio == 0)
        for _ in 0..<10 { stats.recordRequest(operationName: "Q", cache: .bypass, duration: .zero) }
        #expect(stats.hitRatio == 0)
        for cache: RequestStatistics.CacheResult in [.hit, .hit, .stale, .miss] {
            stats.recordRequest(operationName: "Q", cache: cache, duration: .zero)
        }
        #expect(stats.hitRatio == 0.75)
        #expect(stats.operations["Q"]?.hitRatio == 0.75)
    }

    @Test func upstreamFailuresAndTimeoutsAreCountedApart() {
        var stats = RequestStatistics()
        for outcome: RequestStatistics.UpstreamOutcome in [.answered, .answered, .failed, .timedOut] {
            stats.recordUpstream(duration: .milliseconds(3), outcome: outcome)
        }
        #expect(stats.upstreamRequests == 4)
        #expect(stats.upstreamErrors == 1)
        #expect(stats.upstreamTimeouts == 1)
        #expect(stats.upstreamDurations.count == 4)
    }

    @Test func apqEventsAreCounted() {
        var stats = RequestStatistics()
        stats.recordAPQ(.notFound)
        stats.recordAPQ(.notFound)
        stats.recordAPQ(.hashMismatch)
        #expect(stats.apqNotFound == 2)
        #expect(stats.apqHashMismatch == 1)
    }

    @Test func requestsWithoutOperationNameCountAsAnonymous() {
        var stats = RequestStatistics()
        stats.recordRequest(operationName: nil, cache: .miss, duration: .zero)
        #expect(stats.operations[RequestStatistics.anonymousOperationName]?.misses == 1)
    }

    @Test func namesBeyondTheBoundCountUnderOther() {
        var stats = RequestStatistics()
        for index in 0..<600 {
            stats.recordRequest(operationName: "Op\(index)", cache: .miss, duration: .zero)
        }
        stats.recordRequest(operationName: "Op0", cache: .hit, duration: .zero)
        #expect(stats.operations.count == RequestStatistics.maxOperationNames)
        #expect(stats.operations["Op0"]?.requests == 2)
        #expect(stats.operations["Op498"]?.requests == 1)
        #expect(stats.operations["Op499"] == nil)
        #expect(stats.operations[RequestStatistics.otherOperationName]?.requests == 101)
    }

    @Test func mergingPerLoopCopiesEqualsRecordingEverythingInOne() {
        var all = RequestStatistics()
        var loops = [RequestStatistics](repeating: RequestStatistics(), count: 3)
        let results: [RequestStatistics.CacheResult?] = [.hit, .stale, .miss, .bypass, nil]
        for index in 0..<300 {
            let name = index % 7 == 0 ? nil : "Op\(index % 5)"
            let cache = results[index % results.count]
            let duration = Duration.microseconds(100 + index * 37)
            all.recordRequest(operationName: name, cache: cache, duration: duration)
            loops[index % 3].recordRequest(operationName: name, cache: cache, duration: duration)
            let outcomes: [RequestStatistics.UpstreamOutcome] = [.answered, .answered, .failed, .answered, .timedOut]
            let outcome = outcomes[index % outcomes.count]
            all.recordUpstream(duration: duration, outcome: outcome)
            loops[index % 3].recordUpstream(duration: duration, outcome: outcome)
            if index % 17 == 0 {
                all.recordAPQ(.notFound)
                loops[index % 3].recordAPQ(.notFound)
            }
        }
        var merged = RequestStatistics()
        for loop in loops { merged.merge(loop) }
        #expect(merged == all)
    }

    @Test func mergingKeepsTheBoundAndGivesFreeRowsToTheBusiestNames() {
        var first = RequestStatistics()
        var second = RequestStatistics()
        for index in 0..<400 {
            first.recordRequest(operationName: "A\(index)", cache: .miss, duration: .zero)
            second.recordRequest(operationName: "B\(index)", cache: .miss, duration: .zero)
        }
        for _ in 0..<5 { second.recordRequest(operationName: "B399", cache: .hit, duration: .zero) }
        first.merge(second)
        #expect(first.operations.count == RequestStatistics.maxOperationNames)
        #expect(first.operations["B399"]?.requests == 6)
        #expect(first.operations.values.reduce(0) { $0 + $1.requests } == 805)
        #expect(first.operations[RequestStatistics.otherOperationName]?.requests == 301)
    }
}

@Suite struct ResponseCountersTests {
    @Test func statusesCodesAndClientsAreCountedAndMerged() {
        var a = ResponseCounters(), b = ResponseCounters()
        a.record(status: 200, errorCode: nil, clientName: "ios", clientVersion: "1")
        b.record(status: 200, errorCode: nil, clientName: "ios", clientVersion: "1")
        b.record(status: 404, errorCode: "NOT_FOUND", clientName: nil, clientVersion: nil)
        b.record(status: 999, errorCode: nil, clientName: nil, clientVersion: nil)
        a.merge(b)
        #expect(a.byStatus.map(\.status) == ["200", "404", "other"])
        #expect(a.byStatus.map(\.count) == [2, 1, 1])
        #expect(a.errorCodes == ["NOT_FOUND": 1])
        #expect(a.byClient.count == 1 && a.byClient[0].count == 2)
    }

    @Test func clientPairsAndCodesAreBounded() {
        var counters = ResponseCounters()
        for index in 0..<500 {
            counters.record(
                status: 200, errorCode: "CODE_\(index)", clientName: "client-\(index)", clientVersion: "\(index)")
        }
        #expect(counters.byClient.count == ResponseCounters.maxClients)
        #expect(counters.byClient.contains { $0.name == "other" && $0.count == 500 - ResponseCounters.maxClients + 1 })
        #expect(counters.errorCodes.count == ResponseCounters.maxErrorCodes)
        #expect(counters.errorCodes.values.reduce(0, +) == 500)
        let long = String(repeating: "x", count: 1000)
        var one = ResponseCounters()
        one.record(status: 200, errorCode: nil, clientName: long, clientVersion: nil)
        #expect(one.byClient[0].name.utf8.count == RecordedName.maxBytes)
    }

    @Test func operationLabelsAreConfiguredNamesPlusTheBusiestAndOther() {
        var stats = RequestStatistics()
        for index in 0..<30 {
            for _ in 0...index { stats.recordRequest(operationName: "Op\(index)", cache: .miss, duration: .zero) }
        }
        stats.recordRequest(operationName: "Rare", cache: .hit, duration: .zero)
        let report = StatsReport(
            uptime: .zero, requests: stats, cache: StoreStatistics(), apqEntries: 0, apqRegistered: 0,
            coalesced: 0, configuredOperations: ["Rare"])
        let text = report.prometheus()
        let series = text.split(separator: "\n").filter { $0.hasPrefix("breakwater_operation_requests_total{") }
        #expect(series.count == StatsReport.labelledOperations + 2)
        #expect(series.contains(#"breakwater_operation_requests_total{operation="Rare"} 1"#))
        #expect(series.contains(#"breakwater_operation_requests_total{operation="Op29"} 30"#))
        // Op0...Op9 (1 + 2 + ... + 10 requests) are summed as other.
        #expect(series.contains(#"breakwater_operation_requests_total{operation="other"} 55"#))
    }
}

extension StatsRecordingTests {
    /// The row last found is asked first: names that alternate, rows added in between and an
    /// equal name in another string all land in their own row.
    @Test func alternatingNamesAndNewRowsEachCountInTheirOwnRow() {
        var stats = RequestStatistics()
        let names = ["A", "B", "A", "A", "C", String(repeating: "A", count: 1), "B", "D", "A"]
        for name in names {
            stats.recordRequest(operationName: name, cache: .hit, nanoseconds: 1_000)
            stats.recordUpstream(duration: .microseconds(1), outcome: .answered, operationName: name)
        }
        #expect(stats.operations["A"]?.requests == 5)
        #expect(stats.operations["B"]?.requests == 2)
        #expect(stats.operations["C"]?.requests == 1)
        #expect(stats.operations["D"]?.requests == 1)
        #expect(stats.operations["A"]?.upstreamDurations.recorded.map(\.buckets.count) == [5])
        #expect(stats.operations.count == 4)
    }

    @Test func nanosecondDurationsAreSummedExactlyAndNegativeOnesCountAsZero() {
        var stats = RequestStatistics()
        stats.recordRequest(operationName: "Q", cache: .hit, nanoseconds: 1_500_250)
        stats.recordRequest(operationName: "Q", cache: .hit, nanoseconds: -5)
        #expect(stats.requestDurations.count == 2)
        #expect(stats.requestDurations.sum == .nanoseconds(1_500_250))
        #expect(stats.requestDurations.percentile(0) == .zero)
    }
}

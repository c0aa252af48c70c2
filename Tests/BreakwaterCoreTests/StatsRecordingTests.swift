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

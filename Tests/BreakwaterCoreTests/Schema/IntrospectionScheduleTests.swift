// When the proxy asks the origin for its schema again: soon after failures, backing off, and
// every refresh interval once it answers.

import BreakwaterCore
import Testing

struct IntrospectionScheduleTests {
    @Test func failuresBackOffFromOneSecondToTheRefreshInterval() {
        var schedule = IntrospectionSchedule(refreshInterval: .seconds(300))
        let delays = (0..<12).map { _ in schedule.failed() }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
        #expect(schedule.consecutiveFailures == 12)
    }

    @Test func aSuccessWaitsTheRefreshIntervalAndStartsTheBackOffAgain() {
        var schedule = IntrospectionSchedule(refreshInterval: .seconds(300))
        _ = schedule.failed()
        _ = schedule.failed()
        #expect(schedule.succeeded() == .seconds(300))
        #expect(schedule.consecutiveFailures == 0)
        #expect(schedule.failed() == .seconds(1))
    }
}

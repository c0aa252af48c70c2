// LogThrottle: the first occurrence is logged at once, then at most one line per interval, each
// counting the occurrences that were not logged.

import BreakwaterCore
import Testing

struct LogThrottleTests {
    @Test func logsTheFirstAtOnceThenOncePerIntervalWithTheCountSinceTheLastLine() {
        var throttle = LogThrottle(interval: .seconds(60))
        let start = ContinuousClock.now
        #expect(throttle.record(at: start) == 1)
        for second in 1..<60 { #expect(throttle.record(at: start + .seconds(second)) == nil) }
        // 59 unlogged, and this one.
        #expect(throttle.record(at: start + .seconds(60)) == 60)
        #expect(throttle.record(at: start + .seconds(61)) == nil)
        #expect(throttle.record(at: start + .seconds(600)) == 2)
    }
}

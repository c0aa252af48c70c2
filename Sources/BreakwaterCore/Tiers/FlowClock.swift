// The clock the request flow reads: injected, so that tests age entries without sleeping.

/// Both clocks the flow needs: the monotonic one for ages and deadlines, and the wall clock for
/// what other hosts must understand (an entry's stored-at time in a fleet tier).
package protocol FlowClock: Sendable {
    var now: ContinuousClock.Instant { get }
    var wallNow: WallClockTime { get }
}

// Waiting for something a live test cannot be told about: poll it with a deadline, never sleep a
// fixed time and hope it happened.

import Foundation

/// Polls `condition` every `interval` until it holds (true) or `timeout` passes (false): the
/// caller asserts the result, so a wait that ends without the condition fails the test.
public func eventually(
    within timeout: Duration = .seconds(5), every interval: Duration = .milliseconds(10),
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = Deadline(after: timeout)
    while true {
        if try condition() { return true }
        if deadline.hasPassed { return false }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
}

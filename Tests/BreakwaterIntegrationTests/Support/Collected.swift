// Values gathered from several client threads at once.

import Foundation

/// A thread-safe list that concurrent test clients append their results to.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) { lock.withLock { values.append(value) } }

    var all: [Value] { lock.withLock { values } }
}

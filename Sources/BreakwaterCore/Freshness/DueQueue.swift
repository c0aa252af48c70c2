// A binary min-heap of values by due instant: the freshness schedule.

/// Values ordered by when they fall due; the earliest comes out first.
package struct DueQueue<Value> {
    private var heap: [(due: ContinuousClock.Instant, value: Value)] = []

    package init() {}

    package var count: Int { heap.count }

    package mutating func insert(_ value: Value, at due: ContinuousClock.Instant) {
        heap.append((due, value))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest value when it is due by `now`.
    package mutating func popFirst(dueBy now: ContinuousClock.Instant) -> Value? {
        guard let first = heap.first, first.due <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count && heap[left].due < heap[smallest].due { smallest = left }
                if right < heap.count && heap[right].due < heap[smallest].due { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.value
    }
}

extension DueQueue: Sendable where Value: Sendable {}

// A completion that runs once: the first answer wins, a late one (after a deadline, a second
// reply) is ignored. Loop-bound: finished on the loop that holds it.

struct OneShotCompletion<Value> {
    private var completion: ((Value) -> Void)?

    init(_ completion: @escaping (Value) -> Void) {
        self.completion = completion
    }

    /// Whether it already ran.
    var isFinished: Bool { completion == nil }

    /// Runs the completion with `value`, the first time only.
    mutating func finish(_ value: Value) {
        guard let completion else { return }
        self.completion = nil
        completion(value)
    }
}

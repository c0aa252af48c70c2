// A pointer or value handed to another thread that only the owning loop will use.

/// Marks a libevent object as safe to carry across threads because the receiving code runs
/// it on the loop that owns it (libevent objects are not Sendable to Swift).
struct LoopBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

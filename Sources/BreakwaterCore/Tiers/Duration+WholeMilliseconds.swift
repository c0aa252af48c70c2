// Durations in whole milliseconds: the unit of wall-clock instants, of Redis's PX and of the
// fleet's entry codec.

extension Duration {
    /// Whole milliseconds, rounded toward zero.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

// Reading integers out of decoded JSON, where every number arrives as a double.

import GraphQL

extension Map {
    /// The value as an `Int` when it is a number without a fraction, else nil.
    var wholeNumber: Int? {
        guard case .number(let number) = self else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double == double.rounded(), abs(double) < 9e15 else { return nil }
        return Int(double)
    }
}

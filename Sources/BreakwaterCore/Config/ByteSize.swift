// Sizes as written in config.yaml: "32KiB", "256MiB", "1GiB", "512KB" or a plain byte count.

/// A number of bytes.
public struct ByteSize: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var bytes: Int

    public init(_ bytes: Int) { self.bytes = bytes }

    /// Parses a plain count or a number with a unit: B, KB/KiB, MB/MiB, GB/GiB (KB = 1000,
    /// KiB = 1024); nil for anything else, negatives and overflows included.
    public init?(parsing text: String) {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, let value = Int(digits) else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingWhitespace()
        let multiplier: Int
        switch unit.lowercased() {
        case "", "b": multiplier = 1
        case "k", "kb": multiplier = 1000
        case "kib": multiplier = 1 << 10
        case "m", "mb": multiplier = 1000 * 1000
        case "mib": multiplier = 1 << 20
        case "g", "gb": multiplier = 1000 * 1000 * 1000
        case "gib": multiplier = 1 << 30
        default: return nil
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        self.bytes = product
    }

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    /// The shortest exact form: "256MiB", "32KiB", "1000".
    public var description: String {
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        where bytes >= size && bytes % size == 0 {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines.
    package func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

// Log-line times: RFC 3339 in UTC with milliseconds, "2026-11-23T16:04:05.123Z", computed from
// the Unix epoch without a date library (the writer thread formats thousands a second).

/// A wall-clock instant in milliseconds since the Unix epoch, as log lines print it.
package struct LogTimestamp: Sendable, Equatable {
    package var millisecondsSinceEpoch: Int64

    package init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    package var rfc3339: String {
        let milliseconds = Int(millisecondsSinceEpoch.remainderReportingOverflow(dividingBy: 1000).partialValue)
        var seconds = millisecondsSinceEpoch / 1000
        var fraction = milliseconds
        if fraction < 0 {
            fraction += 1000
            seconds -= 1
        }
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        var text = ""
        text.reserveCapacity(24)
        append(year, width: 4, to: &text)
        text += "-"
        append(month, width: 2, to: &text)
        text += "-"
        append(day, width: 2, to: &text)
        text += "T"
        append(secondOfDay / 3600, width: 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, width: 2, to: &text)
        text += ":"
        append(secondOfDay % 60, width: 2, to: &text)
        text += "."
        append(fraction, width: 3, to: &text)
        text += "Z"
        return text
    }

    /// Year, month and day of a day count since 1970-01-01 (H. Hinnant's days_from_civil, inverted).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private func append(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}

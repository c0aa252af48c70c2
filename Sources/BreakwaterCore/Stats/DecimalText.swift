// Plain decimal numbers for the admin renderings: `/stats` promises ratios and milliseconds with
// at most three decimals, and neither JSON nor a person reading `/metrics` wants `1e-05` or `nan`.

/// Writes a `Double` as a plain decimal, rounded, with no exponent and no trailing zeros.
package enum DecimalText {
    /// Appends `value` rounded to `fractionDigits` decimals (0 … 9): `0.75`, `12`, `0.001`.
    ///
    /// NaN and infinities, which no figure here should produce, are written as `0` so that the
    /// output always parses.
    package static func append(_ value: Double, fractionDigits: Int, into out: inout [UInt8]) {
        let digits = min(max(fractionDigits, 0), 9)
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = value.isFinite ? (abs(value) * Double(scale)).rounded() : 0
        // Far beyond any count or duration these renderings carry; saturate rather than trap.
        let units = scaled < 9.0e18 ? Int(scaled) : 9_000_000_000_000_000_000
        if value < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: String(units / scale).utf8)
        var fraction = units % scale
        guard fraction != 0 else { return }
        var fractionLength = digits
        while fraction % 10 == 0 {
            fraction /= 10
            fractionLength -= 1
        }
        out.append(UInt8(ascii: "."))
        let text = String(fraction)
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: fractionLength - text.utf8.count))
        out.append(contentsOf: text.utf8)
    }

    /// `value` as `append(_:fractionDigits:into:)` writes it.
    package static func string(_ value: Double, fractionDigits: Int) -> String {
        var out: [UInt8] = []
        append(value, fractionDigits: fractionDigits, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

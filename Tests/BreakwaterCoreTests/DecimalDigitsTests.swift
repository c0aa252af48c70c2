// ByteCursor.putDecimal, the digits every head and log line write (Content-Length, status,
// durations): the same text as Swift's own description, at every length.

import BreakwaterCore
import Testing

struct DecimalDigitsTests {
    private static func written(_ value: Int) -> String {
        let block = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        defer { block.deallocate() }
        let count = ByteCursor.putDecimal(value, at: block)
        return String(decoding: UnsafeBufferPointer(start: block, count: count), as: UTF8.self)
    }

    @Test func everyLengthAndItsEdges() {
        var values = [0, 1, 9, Int.max, Int.max - 1]
        var power = 1
        for _ in 1...18 {
            power *= 10
            values += [power - 1, power, power + 1, power + 99]
        }
        for value in values { #expect(Self.written(value) == String(value)) }
    }

    @Test func randomValues() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Int.random(in: 0...Int.max, using: &generator) >> Int.random(in: 0..<63, using: &generator)
            #expect(Self.written(value) == String(value))
        }
    }
}

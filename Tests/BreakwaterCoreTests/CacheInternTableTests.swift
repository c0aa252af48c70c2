// InternTable, which lets cache entries share their operation's fields and identical tag lists:
// one value per key, made once, and a bound past which the table starts again.

import BreakwaterCore
import Testing

struct CacheInternTableTests {
    private final class Box: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    @Test func equalKeysGetTheOneValueMadeForTheFirst() {
        let table = InternTable<[String], Box>(limit: 8)
        var made = 0
        let first = table.shared(["Launch:1", "Launch"]) { made += 1; return Box($0.joined()) }
        let second = table.shared(["Launch:1", "Launch"]) { made += 1; return Box($0.joined()) }
        let other = table.shared(["Launch:2", "Launch"]) { made += 1; return Box($0.joined()) }
        #expect(first === second)
        #expect(first !== other)
        #expect(other.text == "Launch:2Launch")
        #expect(made == 2)
    }

    @Test func pastItsLimitTheTableStartsAgainAndOldValuesStayValid() {
        let table = InternTable<Int, Box>(limit: 4)
        let kept = table.shared(0) { Box("\($0)") }
        for key in 1..<4 { _ = table.shared(key) { Box("\($0)") } }
        // The fifth key empties the table: key 0 is made again, the first value is untouched.
        _ = table.shared(4) { Box("\($0)") }
        let again = table.shared(0) { Box("\($0)") }
        #expect(again !== kept)
        #expect(kept.text == "0")
        #expect(again.text == "0")
    }
}

// EntrySideTable, what few cache entries have kept beside them: one value an object, the first
// stored kept, forgotten when its object goes.

import BreakwaterCore
import BreakwaterServer
import Testing
import BreakwaterFixtures

struct EntrySideTableTests {
    private final class Object {}

    @Test func theFirstValueStoredForAnObjectIsKeptUntilItIsRemoved() {
        let table = EntrySideTable<String>()
        let first = Object()
        let second = Object()
        #expect(table.isEmpty)
        #expect(table.value(for: first) == nil)
        #expect(table.storeIfAbsent("a", for: first) == "a")
        #expect(table.storeIfAbsent("b", for: first) == "a", "the first value stays")
        #expect(table.storeIfAbsent("c", for: second) == "c")
        #expect(!table.isEmpty)
        #expect(table.value(for: first) == "a")
        table.removeValue(for: first)
        #expect(table.value(for: first) == nil)
        #expect(table.value(for: second) == "c")
        table.removeValue(for: second)
        table.removeValue(for: second)
        #expect(table.isEmpty)
    }

    @Test func manyObjectsAcrossTheStripes() {
        let table = EntrySideTable<Int>()
        let objects = (0..<1_000).map { _ in Object() }
        for (number, object) in objects.enumerated() { _ = table.storeIfAbsent(number, for: object) }
        for (number, object) in objects.enumerated() { #expect(table.value(for: object) == number) }
        for object in objects { table.removeValue(for: object) }
        #expect(table.isEmpty)
    }

    @Test func aGzippedEntryThatGoesTakesItsFormWithIt() {
        let body = Array(String(repeating: #"{"id":"1","site":"KSC LC 39A"},"#, count: 60).utf8)
        var identifier: ObjectIdentifier?
        do {
            let entry = StoreFixture.entry(key: StoreFixture.key(7), body: body)
            identifier = ObjectIdentifier(entry)
            #expect(!CacheEntry.keepsGzipForm(of: ObjectIdentifier(entry)))
            #expect(entry.gzipResponse(Gzip()) != nil)
            #expect(CacheEntry.keepsGzipForm(of: ObjectIdentifier(entry)))
        }
        #expect(!CacheEntry.keepsGzipForm(of: identifier!))
    }
}

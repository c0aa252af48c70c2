// The per-loop memo of resolved operations: bounded by entries and bytes.

@testable import BreakwaterCore
import Foundation
import Testing

struct OperationMemoTests {
    func operation(_ text: String) -> MemoizedOperation {
        let digest = SHA256Digest(bytes: [UInt8](repeating: 1, count: 32))
        return MemoizedOperation(
            operation: PreparedOperation(
                document: ResolvedDocument(digest: digest, text: text, shouldRegister: false), operationName: nil,
                kind: .query, variables: nil, clientMethod: .get,
                origin: OriginRequest(method: "POST", target: "/graphql", body: [])),
            sharedCacheKey: nil)
    }

    @Test func keepsEntriesUnderBothBoundsAndResetsWhenFull() {
        let memo = OperationMemo(capacity: 3, maxKeyBytes: 100, budgetBytes: 1000, entryOverhead: 0, admitsOnSecondSight: false)
        for i in 0..<3 { memo[.get("/graphql?\(i)")] = operation("{ a }") }
        #expect(memo.count == 3)
        memo[.get("/graphql?3")] = operation("{ a }")
        #expect(memo.count == 1)
        #expect(memo[.get("/graphql?3")] != nil)
        #expect(memo[.get("/graphql?0")] == nil)
    }

    @Test func entriesOverTheKeyLimitAreNotKept() {
        let memo = OperationMemo(capacity: 10, maxKeyBytes: 50, budgetBytes: 1000, entryOverhead: 0, admitsOnSecondSight: false)
        memo[.post(Array(repeating: 32, count: 60))] = operation("{ a }")
        #expect(memo.count == 0)
        #expect(memo.bytes == 0)
    }

    @Test func byteBudgetHoldsAndReplacementKeepsTheAccountRight() {
        let memo = OperationMemo(capacity: 100, maxKeyBytes: 100, budgetBytes: 100, entryOverhead: 0, admitsOnSecondSight: false)
        memo[.get("/a")] = operation("{ aaaa }")
        memo[.get("/a")] = operation("{ a }")
        // The key, the document and the origin request's target (its body is empty here).
        #expect(memo.bytes == 2 + 5 + 8)
        for i in 0..<20 { memo[.get("/graphql?\(i)")] = operation("{ a }") }
        #expect(memo.bytes <= 100)
        memo[.get("/graphql?19")] = nil
        memo.removeAll()
        #expect(memo.bytes == 0)
    }

    /// The budget bounds memory, not only key bytes: a flood of distinct POSTs (a memo entry
    /// each) stops at the budget, with the origin request and the fixed overhead counted.
    @Test func theBudgetCountsTheOriginRequestAndTheOverhead() {
        let memo = OperationMemo(capacity: 4096, maxKeyBytes: 1 << 10, budgetBytes: 64 << 10, admitsOnSecondSight: false)
        let originBody = [UInt8](repeating: 65, count: 300)
        var largest = 0
        for id in 0..<1000 {
            var entry = operation("{ a }")
            entry.operation = PreparedOperation(
                document: entry.operation.document, operationName: nil, kind: .query, variables: nil,
                clientMethod: .post, origin: OriginRequest(method: "POST", target: "/graphql", body: originBody))
            memo[.post(Array(#"{"query":"{ a }","variables":{"id":"\#(1_000_000 + id)"}}"#.utf8))] = entry
            largest = max(largest, memo.count)
        }
        let perEntry = 46 + 5 + 300 + 8 + OperationMemo.defaultEntryOverhead
        #expect(largest == (64 << 10) / perEntry)
        #expect(memo.bytes <= 64 << 10)
    }
}

/// The doorkeeper: a request is kept the second time it is stored, so that requests seen once
/// (a flood of distinct variables) cost the memo nothing.
struct OperationMemoDoorkeeperTests {
    @Test func aRequestIsKeptOnItsSecondSight() {
        let memo = OperationMemo(capacity: 8, entryOverhead: 0)
        memo[.get("/graphql?a")] = OperationMemoTests().operation("{ a }")
        #expect(memo.count == 0)
        #expect(memo[.get("/graphql?a")] == nil)
        memo[.get("/graphql?a")] = OperationMemoTests().operation("{ a }")
        #expect(memo.count == 1)
        #expect(memo[.get("/graphql?a")] != nil)
        // Kept once, replacing it needs no second sight.
        memo[.get("/graphql?a")] = OperationMemoTests().operation("{ b }")
        #expect(memo[.get("/graphql?a")]?.operation.document.text == "{ b }")
    }

    /// `remember` says whether the memo kept the operation: the flow records a request's cache
    /// key in the memo only when it did (a request seen once is not looked up a second time).
    @Test func rememberSaysWhetherTheOperationIsKept() {
        let memo = OperationMemo(capacity: 8, maxKeyBytes: 64, entryOverhead: 0)
        #expect(!memo.remember(OperationMemoTests().operation("{ a }"), for: .get("/graphql?a")))
        #expect(memo.remember(OperationMemoTests().operation("{ a }"), for: .get("/graphql?a")))
        #expect(memo[.get("/graphql?a")] != nil)
        let tooLong = OperationMemo.Key.get("/graphql?" + String(repeating: "b", count: 64))
        #expect(!memo.remember(OperationMemoTests().operation("{ a }"), for: tooLong))
        #expect(!memo.remember(OperationMemoTests().operation("{ a }"), for: tooLong))
    }

    @Test func aFloodOfRequestsSeenOnceKeepsNothing() {
        let memo = OperationMemo(capacity: 64, entryOverhead: 0)
        for id in 0..<1_000 { memo[.get("/graphql?id=\(id)")] = OperationMemoTests().operation("{ a }") }
        #expect(memo.count == 0)
        #expect(memo.bytes == 0)
        // The doorkeeper holds one request per slot (`capacity` of them): a later request in the
        // same slot takes its place. The last one is admitted on its second sight; the first,
        // whose slot 999 later requests among 64 slots all but surely took, is not.
        memo[.get("/graphql?id=999")] = OperationMemoTests().operation("{ a }")
        memo[.get("/graphql?id=0")] = OperationMemoTests().operation("{ a }")
        #expect(memo[.get("/graphql?id=999")] != nil)
        #expect(memo[.get("/graphql?id=0")] == nil)
    }

    @Test func removeAllForgetsTheRequestsSeenOnce() {
        let memo = OperationMemo(capacity: 8, entryOverhead: 0)
        memo[.get("/graphql?a")] = OperationMemoTests().operation("{ a }")
        memo.removeAll()
        memo[.get("/graphql?a")] = OperationMemoTests().operation("{ a }")
        #expect(memo.count == 0)
    }
}

/// The memo's keys carry their hash: equal parameters are equal keys, and bodies of one length
/// that differ in a single byte (distinct variables) are told apart.
struct OperationMemoKeyTests {
    @Test func equalParametersMakeEqualKeysAndHashes() {
        let body = Array(#"{"query":"{ a }","variables":{"id":"1000001"}}"#.utf8)
        #expect(OperationMemo.Key.post(body) == .post(body))
        #expect(OperationMemo.Key.post(body).hashValue == OperationMemo.Key.post(body).hashValue)
        #expect(OperationMemo.Key.get("/graphql?a=1") == .get("/graphql?a=1"))
    }

    @Test func oneByteApartIsAnotherKey() {
        let memo = OperationMemo(capacity: 4096, maxKeyBytes: 1 << 10, budgetBytes: 1 << 20, entryOverhead: 0, admitsOnSecondSight: false)
        let template = #"{"query":"{ launch(id: $id) { id } }","variables":{"id":"@"}}"#
        for id in 0..<500 {
            memo[.post(Array(template.replacingOccurrences(of: "@", with: String(1_000_000 + id)).utf8))] =
                OperationMemoTests().operation("{ a }")
        }
        #expect(memo.count == 500)
        #expect(memo[.post(Array(template.replacingOccurrences(of: "@", with: "1000499").utf8))] != nil)
        #expect(memo[.post(Array(template.replacingOccurrences(of: "@", with: "1000500").utf8))] == nil)
        // A GET target and a POST body with the same bytes are different requests.
        #expect(OperationMemo.Key.get("/x") != .post(Array("/x".utf8)))
    }
}

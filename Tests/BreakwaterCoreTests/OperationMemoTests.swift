// The per-loop memo of resolved operations: bounded by entries and bytes.

@testable import BreakwaterCore
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
        let memo = OperationMemo(capacity: 3, maxKeyBytes: 100, budgetBytes: 1000)
        for i in 0..<3 { memo[.get("/graphql?\(i)")] = operation("{ a }") }
        #expect(memo.count == 3)
        memo[.get("/graphql?3")] = operation("{ a }")
        #expect(memo.count == 1)
        #expect(memo[.get("/graphql?3")] != nil)
        #expect(memo[.get("/graphql?0")] == nil)
    }

    @Test func entriesOverTheKeyLimitAreNotKept() {
        let memo = OperationMemo(capacity: 10, maxKeyBytes: 50, budgetBytes: 1000)
        memo[.post(Array(repeating: 32, count: 60))] = operation("{ a }")
        #expect(memo.count == 0)
        #expect(memo.bytes == 0)
    }

    @Test func byteBudgetHoldsAndReplacementKeepsTheAccountRight() {
        let memo = OperationMemo(capacity: 100, maxKeyBytes: 100, budgetBytes: 100)
        memo[.get("/a")] = operation("{ aaaa }")
        memo[.get("/a")] = operation("{ a }")
        #expect(memo.bytes == 2 + 5)
        for i in 0..<20 { memo[.get("/graphql?\(i)")] = operation("{ a }") }
        #expect(memo.bytes <= 100)
        memo[.get("/graphql?19")] = nil
        memo.removeAll()
        #expect(memo.bytes == 0)
    }
}

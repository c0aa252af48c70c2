// Which traces are recorded (`tracing.sample_ratio`, docs/TRACING.md): a parent's flag is
// followed, new traces by the ratio over their ids; and where a request's trace comes from.

import BreakwaterCore
import Testing

struct TraceSamplingTests {
    static let sampled = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    static let unsampled = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"

    @Test func aSampledParentIsAlwaysFollowedAndAnUnsampledOneNever() throws {
        let none = TraceSampler(ratio: 0)
        let all = TraceSampler(ratio: 1)
        #expect(none.isSampled(parent: try #require(TraceParent.parse(Self.sampled))))
        #expect(!all.isSampled(parent: try #require(TraceParent.parse(Self.unsampled))))
    }

    @Test func newTracesAreSampledByTheRatioOfTheirIds() {
        let ids = RandomTraceIDs(seed: 42)
        let traces = (0..<20_000).map { _ in ids.nextTraceID() }
        #expect(traces.allSatisfy { TraceSampler(ratio: 1).isSampled(newTrace: $0) })
        #expect(!traces.contains { TraceSampler(ratio: 0).isSampled(newTrace: $0) })
        for ratio in [0.01, 0.25, 0.5] {
            let share = Double(traces.filter { TraceSampler(ratio: ratio).isSampled(newTrace: $0) }.count) / 20_000
            #expect(abs(share - ratio) < 0.02, "ratio \(ratio): \(share)")
        }
        // The decision depends on the id alone: every proxy of a fleet decides alike.
        let trace = traces[7]
        #expect(TraceSampler(ratio: 0.3).isSampled(newTrace: trace) == TraceSampler(ratio: 0.3).isSampled(newTrace: trace))
    }

    @Test func ratiosOutsideZeroToOneAreClamped() {
        #expect(TraceSampler(ratio: 7).ratio == 1)
        #expect(TraceSampler(ratio: -1).ratio == 0)
    }

    @Test func idsAreNeverZeroAndDoNotRepeat() {
        let ids = RandomTraceIDs(seed: 0)
        let spans = (0..<10_000).map { _ in ids.nextSpanID() }
        #expect(spans.allSatisfy { $0.isValid })
        #expect(Set(spans).count == spans.count)
        #expect(ids.nextTraceID().isValid)
    }

    static func propagation(ratio: Double = 0, readsClient: Bool = true) -> TracePropagation {
        TracePropagation(sampler: TraceSampler(ratio: ratio), ids: RandomTraceIDs(seed: 9), readsClientContext: readsClient)
    }

    @Test func aClientsTraceIsContinuedWithANewSpanAndItsState() throws {
        let headers: HTTPHeaders = [
            "traceparent": Self.sampled, "tracestate": "congo=t61rcWkgMzE", "TraceState": "rojo=00f067aa0ba902b7",
        ]
        let (context, parent, isSampled) = Self.propagation().begin(headers)
        #expect(context.traceID.hex == "0af7651916cd43dd8448eb211c80319c")
        #expect(context.spanID.hex != "b7ad6b7169203331")
        #expect(parent?.hex == "b7ad6b7169203331")
        #expect(isSampled, "a sampled parent is followed at ratio 0")
        #expect(context.state == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
        #expect(context.flags == 0x01)
    }

    @Test func anInvalidOrDoubledParentStartsANewTraceWithoutItsState() {
        for headers: HTTPHeaders in [
            ["traceparent": "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "a=b"],
            ["traceparent": Self.sampled, "Traceparent": Self.sampled, "tracestate": "a=b"],
            ["tracestate": "a=b"],
        ] {
            let (context, parent, isSampled) = Self.propagation(ratio: 1).begin(headers)
            #expect(parent == nil)
            #expect(context.traceID.hex != "0af7651916cd43dd8448eb211c80319c")
            #expect(context.state == nil)
            #expect(isSampled && context.isSampled, "ratio 1 samples every new trace, and the flag says so")
        }
    }

    @Test func withoutTraceparentInTheForwardedHeadersTheClientsTraceIsNotRead() {
        let (context, parent, isSampled) = Self.propagation(readsClient: false).begin(["traceparent": Self.sampled])
        #expect(parent == nil)
        #expect(context.traceID.hex != "0af7651916cd43dd8448eb211c80319c")
        #expect(!isSampled && !context.isSampled)
    }
}

// `traceparent` as W3C Trace Context reads and writes it (docs/TRACING.md, "Trace context"):
// valid values, every way one is invalid, versions above 00, and the value written back.

import BreakwaterCore
import Testing

struct TraceParentTests {
    static let valid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test func aValidValueGivesItsTraceParentAndFlags() throws {
        let context = try #require(TraceParent.parse(Self.valid))
        #expect(context.traceID.hex == "0af7651916cd43dd8448eb211c80319c")
        #expect(context.spanID.hex == "b7ad6b7169203331")
        #expect(context.flags == 0x01)
        #expect(context.isSampled)
        #expect(context.state == nil)
    }

    @Test func anUnsampledParentAndUnknownFlagsAreKept() throws {
        let unsampled = try #require(TraceParent.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"))
        #expect(!unsampled.isSampled)
        let other = try #require(TraceParent.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03"))
        #expect(other.flags == 0x03)
        #expect(other.traceparent.hasSuffix("-03"))
    }

    @Test(arguments: [
        ("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "version ff"),
        ("00-00000000000000000000000000000000-b7ad6b7169203331-01", "all-zero trace id"),
        ("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", "all-zero parent id"),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0", "too short"),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-011", "version 00 too long"),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra", "version 00 with more fields"),
        ("00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01", "short trace id"),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033-0101", "short parent id"),
        ("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", "upper-case hex"),
        ("00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01", "not hex"),
        ("00_0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331_01", "no dashes"),
        ("0-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x", "one-digit version"),
        ("zz-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "version not hex"),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-zz", "flags not hex"),
        ("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x", "a later version whose extra does not start with a dash"),
        ("", "empty"),
    ])
    func invalidValuesAreIgnored(value: String, why: String) {
        #expect(TraceParent.parse(value) == nil, "\(why)")
    }

    @Test func aLaterVersionIsReadByItsFirstFourFields() throws {
        let later = try #require(TraceParent.parse("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes-next"))
        #expect(later.traceID.hex == "0af7651916cd43dd8448eb211c80319c")
        #expect(later.traceparent == Self.valid, "written back as version 00")
        #expect(TraceParent.parse("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") != nil)
    }

    @Test func spacesAroundTheValueAreIgnored() {
        #expect(TraceParent.parse(" \t\(Self.valid) ") != nil)
    }

    @Test func formattingWritesVersion00AndRoundTrips() throws {
        let context = SpanContext(
            traceID: TraceID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10), spanID: SpanID(0xAB), flags: 1)
        #expect(context.traceparent == "00-0102030405060708090a0b0c0d0e0f10-00000000000000ab-01")
        #expect(TraceParent.parse(context.traceparent) == context)
        #expect(try #require(TraceParent.parse(Self.valid)).traceparent == Self.valid)
        var written = [UInt8](repeating: 0, count: TraceParent.length)
        written.withUnsafeMutableBufferPointer { TraceParent.write(context, at: $0.baseAddress!) }
        #expect(String(decoding: written, as: UTF8.self) == context.traceparent)
    }

    @Test func idsParseOnlyTheirOwnLengthInLowerCaseAndNeverZero() {
        #expect(TraceID(hex: "0af7651916cd43dd8448eb211c80319c")?.hex == "0af7651916cd43dd8448eb211c80319c")
        #expect(TraceID(hex: String(repeating: "0", count: 32)) == nil)
        #expect(TraceID(hex: "0af7651916cd43dd8448eb211c80319") == nil)
        #expect(SpanID(hex: "b7ad6b7169203331")?.value == 0xB7AD_6B71_6920_3331)
        #expect(SpanID(hex: "B7AD6B7169203331") == nil)
        #expect(SpanID(hex: "0000000000000000") == nil)
    }
}

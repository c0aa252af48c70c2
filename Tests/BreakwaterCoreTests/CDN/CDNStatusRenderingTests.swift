// The `cdn` figures in `/stats` and `/metrics` (docs/CDN.md, "Watching it").

import BreakwaterCore
import Foundation
import Testing

struct CDNStatusRenderingTests {
    static func status() -> [CDNTargetStatus] {
        var figures = CDNTargetStatistics()
        figures.purges = 12
        figures.sent = 3
        figures.failed = 1
        figures.retried = 2
        figures.queued = 4
        figures.overflows = 1
        figures.collapses = 5
        figures.lost = 2
        figures.lastError = "HTTP \"503\""
        var queue = CDNPurgeQueue(
            target: .varnish(urls: [OriginURL(parsing: "http://127.0.0.1:6081/")!]),
            settings: .init(batchWindow: .zero, retries: 0, maxQueue: 10))
        let start = ContinuousClock.now
        if case .send(let call)? = queue.enqueue(.tags(["a"], soft: false), now: start).first {
            _ = queue.finished(call.id, .answered(status: 200), now: start + .milliseconds(8))
        }
        figures.latency = queue.statistics.latency
        figures.durations = queue.statistics.durations
        return [
            CDNTargetStatus(label: "varnish", kind: .varnish, statistics: figures),
            CDNTargetStatus(label: "fastly", kind: .fastly, statistics: CDNTargetStatistics()),
        ]
    }

    @Test func statsGainsACDNMemberPerTarget() throws {
        let json = StatsReport.appendingCDN(Self.status(), to: Array(#"{"requests":1}"#.utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["requests"] as? Int == 1)
        let cdn = try #require(object["cdn"] as? [String: [String: Any]])
        let varnish = try #require(cdn["varnish"])
        #expect(varnish["kind"] as? String == "varnish")
        #expect(varnish["purges"] as? Int == 12)
        #expect(varnish["sent"] as? Int == 3)
        #expect(varnish["failed"] as? Int == 1)
        #expect(varnish["retried"] as? Int == 2)
        #expect(varnish["queued"] as? Int == 4)
        #expect(varnish["overflows"] as? Int == 1)
        #expect(varnish["collapses"] as? Int == 5)
        #expect(varnish["lost"] as? Int == 2)
        #expect(varnish["last_error"] as? String == "HTTP \"503\"")
        let p50 = try #require((varnish["latency_ms"] as? [String: Any])?["p50"] as? Double)
        #expect(p50 >= 7.9 && p50 <= 8.1)
        let fastly = try #require(cdn["fastly"])
        #expect(fastly["last_error"] is NSNull)
        #expect((fastly["latency_ms"] as? [String: Any])?["p99"] is NSNull)
    }

    @Test func withoutTargetsNothingIsAdded() {
        #expect(StatsReport.appendingCDN([], to: Array("{}".utf8)) == Array("{}".utf8))
        #expect(StatsReport.appendingCDN([], to: "x\n") == "x\n")
    }

    @Test func metricsCountCallsByResultAndTimeThem() {
        let text = StatsReport.appendingCDN(Self.status(), to: "")
        for line in [
            #"breakwater_cdn_purges_total{target="varnish",result="sent"} 3"#,
            #"breakwater_cdn_purges_total{target="varnish",result="failed"} 1"#,
            #"breakwater_cdn_purges_total{target="varnish",result="retried"} 2"#,
            #"breakwater_cdn_purges_total{target="fastly",result="sent"} 0"#,
            #"breakwater_cdn_queued{target="varnish"} 4"#,
            #"breakwater_cdn_overflows_total{target="varnish"} 1"#,
            #"breakwater_cdn_collapses_total{target="varnish"} 5"#,
            #"breakwater_cdn_lost_total{target="fastly"} 0"#,
            #"breakwater_cdn_purge_duration_seconds_bucket{target="varnish",le="0.01"} 1"#,
            #"breakwater_cdn_purge_duration_seconds_bucket{target="varnish",le="0.005"} 0"#,
            #"breakwater_cdn_purge_duration_seconds_count{target="fastly"} 0"#,
            "# TYPE breakwater_cdn_purge_duration_seconds histogram",
        ] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
    }
}

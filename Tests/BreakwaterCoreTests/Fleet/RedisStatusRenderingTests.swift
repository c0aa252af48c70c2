// The fleet tier's failover and lease figures in `/stats` `redis` and `/metrics`: the master in
// use, failovers since start, and the waits for other proxies' fetches (count and total time).

import BreakwaterCore
import Testing

struct RedisStatusRenderingTests {
    private func status() -> RedisStatus {
        var statistics = RedisStatistics()
        statistics.leaseWaits = 3
        statistics.leaseWaitTime = .milliseconds(1250)
        var status = RedisStatus(connected: true, statistics: statistics)
        status.master = "10.0.0.2:6380"
        status.failovers = 1
        return status
    }

    @Test func statsShowTheMasterFailoversAndLeaseWaits() throws {
        let json = try JSONParser.parse(StatsReportSample.make().json(redis: status()))
        let redis = try #require(json["redis"])
        #expect(redis["master"] == .string("10.0.0.2:6380"))
        #expect(redis["failovers"] == .number("1"))
        #expect(redis["lease_waits"] == .number("3"))
        #expect(redis["lease_wait_ms"] == .number("1250"))
    }

    @Test func metricsHaveTheFamilies() {
        let text = StatsReportSample.make().prometheus(redis: status())
        #expect(text.contains("# TYPE breakwater_redis_failovers_total counter\nbreakwater_redis_failovers_total 1\n"))
        #expect(text.contains("breakwater_redis_lease_waits_total 3\n"))
        #expect(text.contains("breakwater_redis_lease_wait_seconds_total 1.25\n"))
        #expect(text.contains("breakwater_redis_master_info{address=\"10.0.0.2:6380\"} 1\n"))
    }

    @Test func aMasterAddressIsEscapedAsALabelValue() {
        var odd = status()
        odd.master = "/run/re\"dis\\.sock"
        #expect(
            StatsReportSample.make().prometheus(redis: odd).contains(
                #"breakwater_redis_master_info{address="/run/re\"dis\\.sock"} 1"#))
    }
}

// What a cache in front of Breakwater is told (README "The response cache", docs/DEPLOYING.md
// section 6): a real nginx `proxy_cache` in front must never keep a stale or soft-purged answer
// as fresh, and with `cache.downstream_age: remaining` the `max-age` it reads is the time the
// entry has left, with no `Age` (nginx ignores `Age`).

import BreakwaterTesting
import Foundation
import Testing

/// An nginx caching the hashed GETs of one Breakwater, as docs/DEPLOYING.md sets it up.
final class NginxInFront: @unchecked Sendable {
    let process: ManagedProcess
    let port: Int
    let directory: URL
    var client: HTTPClient { HTTPClient(port: port) }

    init(upstreamPort: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-nginx-\(UUID().uuidString)")
        for folder in ["cache", "client_body", "proxy_temp", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        port = FreePort.allocate()
        let dir = directory.path
        let config = """
            master_process off;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(dir)/client_body;
                proxy_temp_path \(dir)/proxy_temp;
                fastcgi_temp_path \(dir)/fastcgi;
                uwsgi_temp_path \(dir)/uwsgi;
                scgi_temp_path \(dir)/scgi;
                proxy_cache_path \(dir)/cache keys_zone=breakwater:1m;
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://127.0.0.1:\(upstreamPort);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_cache breakwater;
                        proxy_cache_key "$scheme$request_method$host$request_uri";
                        add_header X-Edge-Cache $upstream_cache_status always;
                    }
                }
            }
            """
        let path = directory.appendingPathComponent("nginx.conf").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        process = ManagedProcess(
            executable: try #require(binary, "nginx is not installed (scripts/install-deps.sh installs it)"),
            arguments: ["-p", dir, "-c", path, "-g", "daemon off;"])
        try process.start()
        // Ready once it answers on its port.
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? client.get("/healthz-of-nothing")) == nil {
            try #require(ContinuousClock.now < deadline, "nginx did not start: \(process.output.joined(separator: "\n"))")
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    deinit {
        _ = process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite(.serialized) struct CacheInFrontTests {
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"

    static func target(id: String) -> String {
        "/graphql?" + URLEncoding.queryString([("query", detail), ("variables", #"{"id":"\#(id)"}"#)])
    }

    static func proxyYAML(ttl: String, downstreamAge: String = "rfc") -> String {
        """
        persisted_queries:
          store: ""
        cache:
          stale_while_revalidate: 30s
          stale_if_error: 5m
          downstream_age: \(downstreamAge)
          rules:
            - operation: GetLaunchDetail
              ttl: \(ttl)
        """
    }

    /// A soft purge turns the entry stale; when nginx's copy runs out it fetches again, gets
    /// `STALE` with `max-age=0`, and must not keep it: the very next request goes through again.
    @Test func nginxInFrontDoesNotKeepASoftPurgedAnswer() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.proxyYAML(ttl: "2s", downstreamAge: "remaining"))
        let nginx = try NginxInFront(upstreamPort: proxy.port)
        let target = Self.target(id: "21")
        let first = try nginx.client.get(target)
        #expect(first.header("X-Cache") == "MISS" && first.header("X-Edge-Cache") == "MISS")
        #expect(try nginx.client.get(target).header("X-Edge-Cache") == "HIT")
        #expect(try proxy.admin.post("/purge", json: #"{"operation":"GetLaunchDetail","soft":true}"#).status == 200)

        // Within nginx's copy's lifetime (at most the 2 s TTL) nginx goes back to Breakwater.
        let deadline = ContinuousClock.now + .seconds(8)
        var stale: HTTPClientResponse?
        while ContinuousClock.now < deadline {
            let response = try nginx.client.get(target)
            if response.header("X-Cache") == "STALE" && response.header("X-Edge-Cache") != "HIT" {
                stale = response
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let staleAnswer = try #require(stale, "nginx never went back to Breakwater for the soft-purged entry")
        #expect(staleAnswer.header("Cache-Control")?.hasPrefix("public, max-age=0") == true, "\(staleAnswer)")
        // nginx did not store the stale answer as fresh.
        #expect(try nginx.client.get(target).header("X-Edge-Cache") != "HIT")
    }

    /// `downstream_age: remaining`: a hit says how long the entry has left, and no `Age`.
    @Test func remainingModeCountsDownWithoutAge() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.proxyYAML(ttl: "30s", downstreamAge: "remaining"))
        let target = Self.target(id: "22")
        #expect(try proxy.client.get(target).header("Cache-Control")?.hasPrefix("public, max-age=30,") == true)
        let deadline = ContinuousClock.now + .seconds(5)
        var hit: HTTPClientResponse?
        while ContinuousClock.now < deadline {
            let response = try proxy.client.get(target)
            #expect(response.header("X-Cache") == "HIT")
            #expect(response.header("Age") == nil)
            if response.header("Cache-Control")?.hasPrefix("public, max-age=29,") == true {
                hit = response
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(hit != nil, "max-age never counted down")
    }

    /// The default: the whole TTL beside `Age`, for caches that subtract it.
    @Test func rfcModeSendsTheWholeTTLWithAge() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.proxyYAML(ttl: "30s"))
        let target = Self.target(id: "23")
        _ = try proxy.client.get(target)
        let hit = try proxy.client.get(target)
        #expect(hit.header("X-Cache") == "HIT" && hit.header("Age") != nil)
        #expect(hit.header("Cache-Control") == "public, max-age=30, stale-while-revalidate=30, stale-if-error=300")
    }
}

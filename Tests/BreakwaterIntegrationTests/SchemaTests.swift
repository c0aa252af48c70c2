// Schema-aware caching against the real binary and the demo origin (README "Configuration", "The origin side" and "The response cache",
// 5.3): clients that select no `id` or `__typename` still get entries tagged by entity, exactly
// their own fields back, per-type TTL and scope, the tag header, and a schema from an SDL file.

import BreakwaterTesting
import Foundation
import Testing

/// A caching proxy in front of `origin` that has learned the origin's schema (it waits for the
/// line saying so); `cache` and `origin` lines are added to the sections of those names.
func schemaAwareProxy(
    origin: DemoOriginProcess, cache: String = "", schema: String = "auto", waitForSchema: Bool = true
) throws -> ProxyProcess {
    let yaml = """
        persisted_queries:
          store: ""
        origin:
          schema: \(schema)
        cache:
          stale_while_revalidate: 10s
          stale_if_error: 5m
        \(cache)
          rules:
            - operation: GetLaunchDetail
              ttl: 5m
            - operation: GetLaunchSite
              ttl: 5m

        """
    let proxy = try ProxyProcess(origin: origin.url, yaml: yaml, logLevel: "info")
    if waitForSchema { _ = try proxy.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(20)) }
    return proxy
}

@Suite(.serialized) struct SchemaAwareCachingTests {
    /// Selects neither `id` nor `__typename` anywhere.
    static let site = #"{"query":"query GetLaunchSite { launch(id: \"33\") { site rocket { name } } }"}"#
    static let otherSite = #"{"query":"query GetLaunchSite { launch(id: \"34\") { site } }"}"#
    /// Selects the booked launches, without their ids.
    static let book = #"{"query":"mutation Book { bookTrips(launchIds: [\"33\"]) { success launches { isBooked } } }"}"#

    @Test func aClientThatSelectsNoIdsGetsExactlyItsFields() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin)
        let first = try proxy.client.post("/graphql", json: Self.site)
        #expect(first.header("X-Cache") == "MISS")
        #expect(first.text == #"{"data":{"launch":{"site":"CCAFS SLC 40","rocket":{"name":"Falcon 9"}}}}"#, "\(first.text)")
        let again = try proxy.client.post("/graphql", json: Self.site)
        #expect(again.header("X-Cache") == "HIT")
        #expect(again.body == first.body)
        // The origin was asked for the entities the client did not select.
        let upstream = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(upstream.contains("__bw_typename: __typename"), "\(upstream)")
        #expect(upstream.contains("__bw_id: id"), "\(upstream)")
    }

    @Test func aPurgeByTypeAndIdRemovesTheEntryThatHoldsIt() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin)
        _ = try proxy.client.post("/graphql", json: Self.site)
        _ = try proxy.client.post("/graphql", json: Self.otherSite)
        let purge = try proxy.admin.post("/purge", json: #"{"type":"Launch","id":"33"}"#)
        #expect(purge.jsonObject?["purged"] as? Int == 1, "\(purge.text)")
        #expect(try proxy.client.post("/graphql", json: Self.site).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: Self.otherSite).header("X-Cache") == "HIT")
        // The rocket nobody selected an id of tags the entry too.
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Rocket","id":"falcon9"}"#).jsonObject?["purged"] as? Int == 1)
    }

    @Test func aMutationThatSelectsNoIdsInvalidatesTheLaunchItBooked() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin)
        #expect(try proxy.client.post("/graphql", json: Self.site).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: Self.otherSite).header("X-Cache") == "MISS")
        let booked = try proxy.client.post("/graphql", json: Self.book, headers: [("Authorization", "ada@example.com")])
        #expect(booked.text == #"{"data":{"bookTrips":{"success":true,"launches":[{"isBooked":true}]}}}"#, "\(booked.text)")
        #expect(try proxy.client.post("/graphql", json: Self.site).header("X-Cache") == "MISS", "Launch:33 was purged")
        #expect(try proxy.client.post("/graphql", json: Self.otherSite).header("X-Cache") == "HIT")
    }

    @Test func theTagHeaderNamesOperationHashAndEntitiesOnCacheableAnswers() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin, cache: "  tag_header: Surrogate-Key")
        let document = #"query GetLaunchSite { launch(id: \"33\") { site rocket { name } } }"#
        let hash = APQ.hash(document.replacingOccurrences(of: #"\""#, with: "\""))
        let miss = try proxy.client.post("/graphql", json: Self.site)
        let expected = "op:GetLaunchSite hash:\(hash) Launch Rocket Launch:33 Rocket:falcon9"
        #expect(miss.header("Surrogate-Key") == expected)
        let hit = try proxy.client.post("/graphql", json: Self.site)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.header("Surrogate-Key") == expected)
        // Not on answers nobody may cache.
        let booked = try proxy.client.post("/graphql", json: Self.book, headers: [("Authorization", "ada@example.com")])
        #expect(booked.header("Surrogate-Key") == nil)

        let cloudflare = try schemaAwareProxy(origin: origin, cache: "  tag_header: Cache-Tag")
        #expect(
            try cloudflare.client.post("/graphql", json: Self.site).header("Cache-Tag")
                == "op:GetLaunchSite,hash:\(hash),Launch,Rocket,Launch:33,Rocket:falcon9")
    }

    @Test func typeTTLBoundsTheEntryAndZeroMakesItUncacheable() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin, cache: "  types:\n    Rocket: { ttl: 7s }\n    Mission: { ttl: 0s }")
        let get = "/graphql?query=" + URLEncoding.encode(#"query GetLaunchSite { launch(id: "33") { site rocket { name } } }"#)
        let bounded = try proxy.client.get(get)
        #expect(bounded.header("X-Cache") == "MISS")
        #expect(bounded.header("Cache-Control")?.hasPrefix("public, max-age=7,") == true, "\(bounded.header("Cache-Control") ?? "")")
        let withMission = #"{"query":"query GetLaunchDetail { launch(id: \"33\") { site mission { name } } }"}"#
        #expect(try proxy.client.post("/graphql", json: withMission).header("X-Cache") == "BYPASS")
        #expect(try proxy.client.post("/graphql", json: withMission).header("X-Cache") == "BYPASS")
        // Without the Mission the operation is cached under its rule.
        let plain = #"{"query":"query GetLaunchDetail { launch(id: \"33\") { site } }"}"#
        _ = try proxy.client.post("/graphql", json: plain)
        #expect(try proxy.client.post("/graphql", json: plain).header("X-Cache") == "HIT")
    }

    @Test func aPerUserTypeIsNeverSharedAndItsOperationBypassesOnceSeen() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(
            origin: origin, cache: "  tag_header: xkey\n  types:\n    Rocket: { scope: per-user }")
        let first = try proxy.client.post("/graphql", json: Self.site)
        #expect(first.header("X-Cache") == "BYPASS", "the first answer shows the per-user type: not shared")
        let second = try proxy.client.post("/graphql", json: Self.site)
        #expect(second.header("X-Cache") == "BYPASS", "known to answer a per-user type: never stored")
        let third = try proxy.client.get(
            "/graphql?query=" + URLEncoding.encode(#"query GetLaunchSite { launch(id: "33") { site rocket { name } } }"#))
        #expect(third.header("X-Cache") == "BYPASS")
        #expect(third.header("Cache-Control") == "private, no-store")
        #expect(third.header("xkey") == nil, "nothing a cache in front may keep")
        // An operation whose answers hold no Rocket stays shared.
        #expect(try proxy.client.post("/graphql", json: Self.otherSite).header("X-Cache") == "MISS")
        let shared = try proxy.client.get(
            "/graphql?query=" + URLEncoding.encode(#"query GetLaunchSite { launch(id: "34") { site } }"#))
        #expect(shared.header("X-Cache") == "HIT")
        #expect(shared.header("Cache-Control")?.hasPrefix("public") == true)
    }

    /// A proxy started before its origin learns the schema within seconds of the origin coming
    /// up (introspection retried from 1 s, backing off), not at the next 5-minute refresh.
    @Test func aProxyStartedBeforeItsOriginLearnsTheSchemaWithinSeconds() throws {
        let port = FreePort.allocate()
        let proxy = try ProxyProcess(
            origin: "http://127.0.0.1:\(port)/graphql",
            yaml: "persisted_queries:\n  store: \"\"\norigin:\n  schema: auto\n", logLevel: "info")
        _ = try proxy.process.waitForLine(containing: "introspection failed", timeout: .seconds(10))
        let origin = try DemoOriginProcess(listen: "127.0.0.1:\(port)")
        _ = try proxy.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(10))
        // Entity tags now come from the schema: a purge by a launch the client never selected an id of.
        _ = try proxy.client.post("/graphql", json: Self.site)
        let upstream = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(upstream.contains("__bw_"), "the document was rewritten: \(upstream)")
    }

    @Test func entityTagsSelectedTagsOnlyWhatTheClientSelected() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin, cache: "  entity_tags: selected")
        _ = try proxy.client.post("/graphql", json: Self.site)
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Launch","id":"33"}"#).jsonObject?["purged"] as? Int == 0)
        let upstream = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(!upstream.contains("__bw_"), "documents go as sent")
    }
}

@Suite(.serialized) struct SchemaSourceTests {
    static let sdl = """
        type Query { launch(id: ID!): Launch }
        type Launch { id: ID! site: String rocket: Rocket }
        type Rocket { id: ID! name: String }
        """

    @Test func anSDLFileIsReadAtStart() throws {
        let origin = try DemoOriginProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-sdl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("schema.graphql").path
        try Self.sdl.write(toFile: file, atomically: true, encoding: .utf8)
        let proxy = try schemaAwareProxy(origin: origin, schema: file, waitForSchema: false)
        // No wait: a file's schema is in use before the first request.
        let answer = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(answer.text == #"{"data":{"launch":{"site":"CCAFS SLC 40","rocket":{"name":"Falcon 9"}}}}"#)
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Launch","id":"33"}"#).jsonObject?["purged"] as? Int == 1)
    }

    @Test func aReloadRereadsTheSDLFileAndABadOneKeepsTheRunningSchema() throws {
        let origin = try DemoOriginProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-sdl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("schema.graphql").path
        // First without Rocket.id: rockets name no entity.
        try Self.sdl.replacingOccurrences(of: "type Rocket { id: ID! name: String }", with: "type Rocket { name: String }")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let proxy = try schemaAwareProxy(origin: origin, schema: file, waitForSchema: false)
        _ = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Rocket","id":"falcon9"}"#).jsonObject?["purged"] as? Int == 0)

        try Self.sdl.write(toFile: file, atomically: true, encoding: .utf8)
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(10))
        #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#).status == 200)
        #expect(try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site).header("X-Cache") == "MISS")
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Rocket","id":"falcon9"}"#).jsonObject?["purged"] as? Int == 1)

        try "type Query {\n  launch(: ID!): Launch\n}\n".write(toFile: file, atomically: true, encoding: .utf8)
        proxy.process.signal(SIGHUP)
        let failed = try proxy.process.waitForLine(containing: "reload failed", timeout: .seconds(10))
        #expect(failed.contains("\(file):2:"), "\(failed)")
        _ = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Rocket","id":"falcon9"}"#).jsonObject?["purged"] as? Int == 1)
    }

    @Test func aBadSDLFileIsAStartupErrorWithFileAndLineAndValidateSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-sdl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("schema.graphql").path
        try "type Query {\n  launch(id: ID!): Launch\n  broken(: Int\n}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("config.yaml").path
        try "origin:\n  schema: schema.graphql\npersisted_queries:\n  store: \"\"\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let validate = try runBreakwater(["validate", "--config", config])
        #expect(validate.status == 2, "\(validate.output)")
        #expect(validate.output.contains("origin.schema: \(file):3:"), "\(validate.output)")
        let run = try runBreakwater(["run", "--config", config, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"])
        #expect(run.status != 0)
        #expect(run.output.contains("\(file):3:"), "\(run.output)")
    }

    @Test func aFailedIntrospectionIsLoggedAndTheProxyServesWithoutASchema() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"status":500,"statusBody":"html"}"#)
        let proxy = try schemaAwareProxy(origin: origin, waitForSchema: false)
        let warning = try proxy.process.waitForLine(containing: "introspection failed", timeout: .seconds(20))
        #expect(warning.contains("500"), "\(warning)")
        try origin.setFaults(#"{"reset":true}"#)
        let answer = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(answer.status == 200)
        #expect(answer.header("X-Cache") == "MISS")
        let upstream = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(!upstream.contains("__bw_"), "no schema: the document went as sent")
    }

    /// An answer cached while the origin's schema was unknown (stored unchecked) is dropped when
    /// the schema arrives: the next request is fetched again with the checked document.
    @Test func answersCachedBeforeTheSchemaArrivedAreDroppedWhenItDoes() throws {
        let origin = try DemoOriginProcess()
        // Clients are answered; the proxy's introspection alone is refused.
        try origin.setFaults(#"{"introspectionStatus":503,"statusBody":"html"}"#)
        let proxy = try schemaAwareProxy(origin: origin, waitForSchema: false)
        _ = try proxy.process.waitForLine(containing: "introspection failed", timeout: .seconds(20))
        let first = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(first.status == 200)
        #expect(first.header("X-Cache") == "MISS")
        let unchecked = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(!unchecked.contains("__bw_"), "no schema yet: the document went as sent")
        #expect(try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site).header("X-Cache") == "HIT")

        try origin.setFaults(#"{"introspectionStatus":null}"#)
        // The next introspection (retried from 1 s, backing off) brings the schema.
        let dropped = try proxy.process.waitForLine(
            containing: "answers stored unchecked before it were dropped", timeout: .seconds(60))
        #expect(dropped.contains("cache.unchecked_dropped=1"), "\(dropped)")
        let afterSchema = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(afterSchema.header("X-Cache") == "MISS", "the unchecked answer must not be served once the schema is known")
        #expect(afterSchema.text.contains(#""site""#) && !afterSchema.text.contains("__bw_"), "\(afterSchema.text)")
        let checked = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(checked.contains("__bw_"), "fetched again with the checked document: \(checked)")
        #expect(try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site).header("X-Cache") == "HIT")
        #expect(try origin.requests("GetLaunchSite") == 2)
    }

    @Test func aFailedReintrospectionKeepsTheLastGoodSchema() throws {
        let origin = try DemoOriginProcess()
        let proxy = try schemaAwareProxy(origin: origin)
        try origin.setFaults(#"{"status":503,"statusBody":"html"}"#)
        proxy.process.signal(SIGHUP)  // a reload asks the origin again at once
        let warning = try proxy.process.waitForLine(containing: "introspection failed", timeout: .seconds(20))
        #expect(warning.contains("last good schema stays"), "\(warning)")
        try origin.setFaults(#"{"reset":true}"#)
        _ = try proxy.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(try proxy.admin.post("/purge", json: #"{"type":"Launch","id":"33"}"#).jsonObject?["purged"] as? Int == 1)
    }
}

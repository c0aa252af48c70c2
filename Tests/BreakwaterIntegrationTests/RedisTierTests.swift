// The Redis tiers against a real redis-server, two or three "proxies" in this process: entries,
// documents, leases and purges shared; Redis down, slow, restarted, full or password-protected
// never turning into more than a miss within the deadline.

import BreakwaterCore
import BreakwaterServer
import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized)
struct RedisTierTests {
    @Test func anEntryStoredByOneProxyIsServedByAnotherWithItsAge() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        let b = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let made = ContinuousClock.now
        let entry = RedisTestEntries.entry("age", ageMilliseconds: 4_000)
        #expect(await a.storeAndWait(entry))
        let read = try #require(await b.lookup(entry.key))
        // The age goes on growing while the store and the lookup run (seconds on a loaded machine).
        let since = ContinuousClock.now - made
        #expect(read.body == entry.body)
        #expect(read.etag == entry.etag)
        #expect(read.tags == entry.tags)
        #expect(read.ttl == .seconds(30))
        let age = ContinuousClock.now - read.storedAt
        #expect(age >= .seconds(4) && age < .seconds(5) + since, "age \(age), \(since) since the entry was made")
        #expect(await b.lookup(RedisTestEntries.key("absent")) == nil)
        let stats = b.fleet.health.statistics
        #expect(stats.l2Hits >= 1 && stats.l2Misses >= 1)
        #expect(stats.latency.count > 0)
    }

    @Test func anEntryLargerThanTheLimitStaysLocal() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        let big = RedisTestEntries.entry("big", body: String(repeating: "x", count: 2 << 20))
        await a.store(big)
        let small = RedisTestEntries.entry("small")
        #expect(await a.storeAndWait(small))
        #expect(await a.lookup(big.key) == nil)
    }

    @Test func registrationsAreSharedAcrossProxies() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        let b = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let document = "query Shared { launches { cursor } }"
        let hash = RedisTestEntries.hasher.sha256(document)
        await a.publish(document, hash: hash)
        #expect(try await b.awaitDocument(hash) == document)
        let unknown = RedisTestEntries.hasher.sha256("query Unknown { x }")
        let missing: String? = await b.onLoop { member, done in member.documentTier.lookup(unknown, completion: done) }
        #expect(missing == nil)
        #expect(b.fleet.health.statistics.registryHits == 1)
    }

    @Test func oneProxyHoldsTheLeaseAndTheOthersGetItsEntry() async throws {
        let redis = try RedisServerProcess()
        // A lease call that misses redis.timeout counts as won (every proxy fetches for itself
        // without Redis): a generous timeout keeps a busy machine from making two winners.
        let members = try (0..<3).map { _ in try RedisFleetMember(url: redis.url, timeout: .seconds(4)) }
        for member in members { #expect(await member.waitUntilUp()) }
        let key = RedisTestEntries.key("burst")
        var winners: [Int] = []
        for (index, member) in members.enumerated() {
            let won: Bool = await member.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(60), completion: done)
        }
            if won { winners.append(index) }
        }
        #expect(winners == [0])
        // The holder stores its entry once both others wait (their waits are counted when they
        // end, so the store is tied to the waits having begun, not to a delay), then releases.
        let waitersStarted = LockedValue(0)
        async let waited1: CacheEntry? = members[1].onLoop { m, done in
            waitersStarted.update { $0 += 1 }
            m.responseTier.awaitEntry(key, timeout: .seconds(60), completion: done)
        }
        async let waited2: CacheEntry? = members[2].onLoop { m, done in
            waitersStarted.update { $0 += 1 }
            m.responseTier.awaitEntry(key, timeout: .seconds(60), completion: done)
        }
        #expect(await members[0].waitUntil(.seconds(60)) { waitersStarted.load() == 2 })
        await members[0].onLoop { (m, done: @escaping (Bool) -> Void) in
            m.responseTier.store(RedisTestEntries.entry("burst"), unlessPurgedSince: FleetPurgeCount(0))
            m.responseTier.releaseLease(key)
            done(true)
        }
        // The entry, not the deadline (a minute, far beyond any machine's slowness), ends each wait.
        let (one, two) = await (waited1, waited2)
        #expect(one?.key == key)
        #expect(two?.key == key)
        #expect(try redis.cli("EXISTS", "bwtest:lease:\(key.digest.hex)") == "0")
        for member in members.dropFirst() { #expect(member.fleet.health.statistics.leaseWaits == 1) }
    }

    @Test func aLeaseWhoseHolderCannotRenewItEndsWithinOneTermAndItsWaiterFetches() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url, timeout: .milliseconds(500))
        let b = try RedisFleetMember(url: redis.url, timeout: .milliseconds(500))
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let key = RedisTestEntries.key("orphan")
        let won: Bool = await a.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(60), completion: done)
        }
        #expect(won)
        // Not origin.timeout (10 s): one term. No fetch was seen yet, so it is the floor a
        // renewal needs, three times redis.timeout: 1.5 s.
        let ttl = try #require(Int(try redis.cli("PTTL", "bwtest:lease:\(key.digest.hex)")))
        #expect(ttl > 0 && ttl <= 1_500, "\(ttl) ms")
        // The holder's loop wedges (as a holder whose SET timed out on its side, then vanished):
        // no renewal, no release, until it is let go.
        let release = LockedValue(false)
        let wedgedUntil = ContinuousClock.now + .seconds(60)
        a.loop.execute {
            while !release.load() && ContinuousClock.now < wedgedUntil { usleep(10_000) }
        }
        defer { release.store(true) }
        let waited: CacheEntry? = await b.onLoop { m, done in
            m.responseTier.awaitEntry(key, timeout: .seconds(60)) { entry in done(entry) }
        }
        // The wait ended with the lease, while the holder was still wedged.
        #expect(waited == nil)
        #expect(release.load() == false)
        #expect(try redis.cli("EXISTS", "bwtest:lease:\(key.digest.hex)") == "0")
        release.store(true)
        withExtendedLifetime(a) {}
    }

    @Test func aHolderRenewsItsLeaseWhileItsFetchRunsAndTheWaiterGetsItsEntry() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url, timeout: .milliseconds(500))
        let b = try RedisFleetMember(url: redis.url, timeout: .milliseconds(500))
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let key = RedisTestEntries.key("renewed")
        let leaseKey = "bwtest:lease:\(key.digest.hex)"
        let won: Bool = await a.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(60), completion: done)
        }
        #expect(won)
        let finished = LockedValue(false)
        async let waited: CacheEntry? = b.onLoop { m, done in
            m.responseTier.awaitEntry(key, timeout: .seconds(60)) { entry in
                finished.store(true)
                done(entry)
            }
        }
        // Outlive the first term: the lease is still there after more than a term, renewed.
        let term = LeaseTerm(redisTimeout: .milliseconds(500), originTimeout: .seconds(60)).term
        let firstSeen = ContinuousClock.now
        var renewals = 0
        var lastTTL = Int.max
        while ContinuousClock.now < firstSeen + term * 2 + .seconds(30) {
            guard let ttl = Int(try redis.cli("PTTL", leaseKey)), ttl > 0 else { break }
            if ttl > lastTTL { renewals += 1 }
            lastTTL = ttl
            if renewals >= 1 && ContinuousClock.now > firstSeen + term * 2 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(renewals >= 1)
        #expect(try redis.cli("EXISTS", leaseKey) == "1")
        #expect(finished.load() == false)
        await a.onLoop { (m, done: @escaping (Bool) -> Void) in
            m.responseTier.store(RedisTestEntries.entry("renewed"), unlessPurgedSince: FleetPurgeCount(0))
            m.responseTier.releaseLease(key)
            done(true)
        }
        #expect(await waited?.key == key)
        let stats = b.fleet.health.statistics
        #expect(stats.leaseWaits == 1 && stats.leaseWaitTime > .zero)
    }

    @Test func aWaiterStopsWhenTheHoldersFetchMustBeOver() async throws {
        let redis = try RedisServerProcess()
        // A 2 s redis.timeout makes the lease term 6 s: the lease outlives the holder's deadline
        // by seconds, so only the deadline the lease carries can end the wait that early.
        let a = try RedisFleetMember(url: redis.url, timeout: .seconds(2))
        let b = try RedisFleetMember(url: redis.url, timeout: .seconds(2))
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let key = RedisTestEntries.key("deadline")
        let leaseKey = "bwtest:lease:\(key.digest.hex)"
        // The holder's fetch may last 2 s (its origin.timeout); it neither stores nor releases.
        let won: Bool = await a.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(2), completion: done)
        }
        #expect(won)
        // The waiter's own limit is a minute: the holder's deadline, carried by the lease, ends it.
        let waited: CacheEntry? = await b.onLoop { m, done in
            m.responseTier.awaitEntry(key, timeout: .seconds(60), completion: done)
        }
        #expect(waited == nil)
        #expect(try redis.cli("EXISTS", leaseKey) == "1", "the wait ended before the lease did")
        // Nor does the holder renew it past its deadline: it ends within a term.
        #expect(await a.waitUntil(.seconds(30)) { (try? redis.cli("EXISTS", leaseKey)) == "0" })
    }

    @Test func aReleaseThatGetsNoAnswerIsSentAgainAndDeletesTheLease() async throws {
        let redis = try RedisServerProcess()
        // A 2 s redis.timeout makes the term 6 s: a lease that vanishes with seconds left on it
        // was deleted by the retried release, not expired.
        let a = try RedisFleetMember(url: redis.url, timeout: .seconds(2))
        #expect(await a.waitUntilUp())
        let key = RedisTestEntries.key("release")
        let leaseKey = "bwtest:lease:\(key.digest.hex)"
        let won: Bool = await a.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(60), completion: done)
        }
        #expect(won)
        // The holder's connection is cut just before it releases: the first release gets no answer.
        try redis.cli("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        await a.onLoop { (m, done: @escaping (Bool) -> Void) in
            m.responseTier.releaseLease(key)
            done(true)
        }
        var lastTTL = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard let ttl = Int(try redis.cli("PTTL", leaseKey)), ttl > 0 else { break }
            lastTTL = ttl
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try redis.cli("EXISTS", leaseKey) == "0")
        #expect(lastTTL > 1_000, "deleted with \(lastTTL) ms left, not expired")
    }

    @Test func aWaiterStopsAsSoonAsTheLeaseGoesWithoutAnEntry() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        let b = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let key = RedisTestEntries.key("uncacheable")
        let won: Bool = await a.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(10), completion: done)
        }
        #expect(won)
        a.loop.execute { [a] in a.loop.schedule(after: .milliseconds(100)) { a.responseTier.releaseLease(key) } }
        let (waited, elapsed): (CacheEntry?, Duration) = await b.onLoopTimed { m, done in
            m.responseTier.awaitEntry(key, timeout: .seconds(5), completion: done)
        }
        #expect(waited == nil)
        #expect(elapsed < .seconds(1), "\(elapsed)")
    }

    @Test func purgesOfEveryKindReachTheL2AndTheOtherProxies() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        let b = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let received = Collected<(PurgeRequest, ContinuousClock.Instant)>()
        b.fleet.purgeBus.setRemotePurgeHandler { received.append(($0, .now)) }
        // The subscriber connects on its own, after the command connections.
        #expect(await b.waitUntil(.seconds(10)) { b.fleet.health.isSubscribed })
        let document = RedisTestEntries.hasher.sha256("query GetLaunch { launch { id } }")
        let cases: [(PurgeRequest, String)] = [
            (PurgeRequest(selector: .tag("Launch:92"), soft: false), "tag"),
            (PurgeRequest(selector: .tag("Launch"), soft: false), "type"),
            (PurgeRequest(selector: .operation("GetLaunch"), soft: false), "operation"),
            (PurgeRequest(selector: .document(document), soft: false), "hash"),
            (PurgeRequest(selector: .all, soft: false), "all"),
        ]
        for (index, (purge, name)) in cases.enumerated() {
            let entry = RedisTestEntries.entry("purge-\(name)")
            let bystander = RedisTestEntries.entry("bystander-\(name)", tags: ["Rocket:1"], operationName: "Other")
            #expect(await a.storeAndWait(entry), "\(name)")
            #expect(await a.storeAndWait(bystander), "\(name)")
            let sent = ContinuousClock.now
            a.fleet.purgeBus.publish(purge)
            while received.all.count <= index, ContinuousClock.now - sent < .seconds(5) {
                try await Task.sleep(for: .milliseconds(5))
            }
            let arrival = try #require(received.all.last, "\(name)")
            #expect(arrival.0 == purge, "\(name)")
            #expect(arrival.1 - sent < .seconds(1), "\(name) reached the other proxy in \(arrival.1 - sent)")
            #expect(await b.lookup(entry.key) == nil, "\(name) removed the entry from the L2")
            let survives = name != "all" && name != "hash"
            #expect((await b.lookup(bystander.key) != nil) == survives, "\(name) bystander")
        }
        #expect(b.fleet.health.statistics.remotePurges == cases.count)
        #expect(try redis.cli("GET", "bwtest:gen") == "1")
    }

    /// A fetch on one proxy that looked in the L2 before another proxy's purge, and ends after
    /// it, does not write its answer (read before the purge) back into the L2 the purge cleared:
    /// a purge of a tag it holds, a soft purge, a purge of everything. A bystander written with
    /// the same count lands, and so does the answer of a fetch that looked after the purge.
    @Test func anAnswerFetchedAcrossAnotherProxysPurgeIsNotWrittenToTheL2() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        let b = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let cases: [(PurgeRequest, String)] = [
            (PurgeRequest(selector: .tag("Launch:92"), soft: false), "tag"),
            (PurgeRequest(selector: .tag("Launch"), soft: true), "soft"),
            (PurgeRequest(selector: .all, soft: false), "all"),
        ]
        for (purge, name) in cases {
            let entry = RedisTestEntries.entry("across-\(name)")
            let bystander = RedisTestEntries.entry("bystander-\(name)", tags: ["Rocket:1"], operationName: "Other")
            // A's fetch begins: its lookup misses and reads the count.
            let lookedUp = await a.lookupCounting(entry.key)
            #expect(lookedUp.entry == nil, "\(name)")
            let seen = try #require(lookedUp.purges, "\(name)")
            // B purges while it runs; Redis has applied it once the count moved.
            b.fleet.purgeBus.publish(purge)
            #expect(await b.waitUntil(.seconds(5)) {
                (try? redis.cli("GET", "bwtest:purges:n")).flatMap { UInt64($0) }.map { $0 > seen.value } ?? false
            }, "\(name)")
            // A's answer arrives. Writes on one connection are applied in order: once the
            // bystander is readable, the entry's write was decided.
            await a.store(entry, unlessPurgedSince: seen)
            await a.store(bystander, unlessPurgedSince: seen)
            let generation = name == "all"
            if generation {
                // The generation moved: A writes under the new one once it has heard of it.
                #expect(await a.waitUntil(.seconds(5)) { a.fleet.purgeLogPosition.generation == b.fleet.purgeLogPosition.generation })
                await a.store(entry, unlessPurgedSince: seen)
                await a.store(bystander, unlessPurgedSince: seen)
            }
            var landed = false
            for _ in 0..<200 where !landed {
                landed = await b.lookup(bystander.key) != nil
                if !landed { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(landed == !generation, "\(name): the bystander is refused only after a purge of everything")
            #expect(await b.lookup(entry.key) == nil, "\(name): the answer read before the purge is not in the L2")
            // A fetch that looks after the purge writes its answer.
            #expect(await a.storeAndWait(entry), "\(name)")
        }
    }

    @Test func softPurgesTurnL2EntriesStaleInsteadOfRemovingThem() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        let entry = RedisTestEntries.entry("soft", ageMilliseconds: 2_000)
        #expect(await a.storeAndWait(entry))
        a.fleet.purgeBus.publish(PurgeRequest(selector: .tag("Launch:92"), soft: true))
        var read: CacheEntry?
        for _ in 0..<100 {
            read = await a.lookup(entry.key)
            if let read, read.ttl < .seconds(30) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let stale = try #require(read)
        #expect(stale.ttl >= .seconds(2) && stale.ttl < .seconds(4), "stale from the purge on: \(stale.ttl)")
        // Stored again after the purge: fresh again.
        let refreshed = RedisTestEntries.entry("soft")
        await a.store(refreshed)
        var fresh: CacheEntry?
        for _ in 0..<200 where fresh?.ttl != .seconds(30) {
            fresh = await a.lookup(entry.key)
            if fresh?.ttl != .seconds(30) { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(fresh?.ttl == .seconds(30))
        // A soft purge of everything marks what was stored before it.
        a.fleet.purgeBus.publish(PurgeRequest(selector: .all, soft: true))
        // Stale from the purge on: its TTL ends at the purge, however long the store took to land.
        var marked: CacheEntry?
        for _ in 0..<200 where marked.map({ $0.ttl >= .seconds(30) }) ?? true {
            marked = await a.lookup(entry.key)
            if marked.map({ $0.ttl >= .seconds(30) }) ?? true { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(try #require(marked).ttl < .seconds(30))
    }

    @Test func withRedisUnreachableEveryCallIsAMissWithinTheTimeout() async throws {
        let log = CapturedLog()
        let a = try RedisFleetMember(url: "redis://127.0.0.1:\(FreePort.allocate())", log: log)
        // Once the first connection attempt is refused, every call misses at once.
        #expect(await a.waitUntil(.seconds(5)) { log.all.contains { $0.message.hasPrefix("redis unreachable") } })
        #expect(!a.fleet.health.isUp)
        let (entry, lookupTime): (CacheEntry?, Duration) = await a.onLoopTimed { m, done in
            m.responseTier.lookup(RedisTestEntries.key("x")) { entry, _ in done(entry) }
        }
        #expect(entry == nil)
        let (won, leaseTime): (Bool, Duration) = await a.onLoopTimed { m, done in
            m.responseTier.acquireLease(RedisTestEntries.key("x"), ttl: .seconds(1), completion: done)
        }
        #expect(won, "without Redis every proxy fetches for itself")
        #expect(lookupTime < .milliseconds(100) && leaseTime < .milliseconds(100), "\(lookupTime), \(leaseTime)")
    }

    @Test func aSlowRedisCostsAtMostTheTimeoutAndItsLateRepliesAreIgnored() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url, timeout: .milliseconds(50))
        #expect(await a.waitUntilUp())
        let entry = RedisTestEntries.entry("slow")
        #expect(await a.storeAndWait(entry))
        let sleeper = Thread { _ = try? redis.cli("DEBUG", "SLEEP", "1") }
        sleeper.start()
        // Until the sleep has begun, calls are answered; then they miss at the deadline.
        var elapsed = Duration.zero
        var missed = false
        let waitStarted = ContinuousClock.now
        while !missed, ContinuousClock.now - waitStarted < .milliseconds(900) {
            let (read, time): (CacheEntry?, Duration) = await a.onLoopTimed { m, done in
                m.responseTier.lookup(entry.key) { entry, _ in done(entry) }
            }
            missed = read == nil
            elapsed = time
        }
        #expect(missed)
        // At most the timeout plus scheduling. (It can be less: on a busy machine eight calls in a
        // row may miss the 50 ms and drop the connection, and a call without one misses at once;
        // the count of timeouts below shows the deadline was what cut the calls short.)
        #expect(elapsed < .milliseconds(400), "\(elapsed)")
        // DEBUG SLEEP 1 ends, and the member reads the entry again.
        var answered = false
        let slept = ContinuousClock.now
        while !answered, ContinuousClock.now - slept < .seconds(10) {
            answered = await a.lookup(entry.key) != nil
            if !answered { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(answered, "answers again once Redis is")
        #expect(a.fleet.health.statistics.timeouts >= 1)
    }

    @Test func aRestartedRedisIsReconnectedAndSharedAgain() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url, timeout: .milliseconds(200))
        #expect(await a.waitUntilUp())
        redis.kill()
        let (entry, elapsed): (CacheEntry?, Duration) = await a.onLoopTimed { m, done in
            m.responseTier.lookup(RedisTestEntries.key("k")) { entry, _ in done(entry) }
        }
        #expect(entry == nil)
        #expect(elapsed < .milliseconds(450), "a miss by redis.timeout (200 ms) plus scheduling: \(elapsed)")
        #expect(await a.waitUntil(.seconds(5)) { !a.fleet.health.isUp })
        try redis.restart()
        #expect(await a.waitUntilUp(timeout: .seconds(10)))
        #expect(await a.storeAndWait(RedisTestEntries.entry("after-restart")))
    }

    @Test func afterAnOutageEveryLoopReconnectsWithTheFirst() async throws {
        let redis = try RedisServerProcess()
        let log = CapturedLog()
        let a = try RedisFleetMember(url: redis.url, timeout: .milliseconds(200), loops: 4, log: log)
        let health = a.fleet.health
        #expect(await a.waitUntilUp())
        redis.kill()
        // Every connection (the loops' and the purge subscriber) has failed five reconnections:
        // its backoff (100 ms, doubling, with jitter) is 1.6 to 3.2 s now, the loops' retries a
        // second and more apart.
        @Sendable func attempts(_ number: Int) -> Int {
            log.all.filter { $0.message == "redis connecting" && $0.metadata["redis.attempt"] == "\(number)" }.count
        }
        let connections = attempts(1)
        #expect(connections >= 4, "each loop's connection made its first attempt")
        #expect(await a.waitUntil(.seconds(15)) { attempts(6) >= connections }, "\(log.all.count) records")
        #expect(health.readyConnectionCount == 0)
        try redis.restart()
        #expect(await a.waitUntil(.seconds(10)) { health.isUp })
        // The first loop to reach Redis again wakes the others out of their backoff.
        #expect(await a.waitUntil(.milliseconds(400)) { health.readyConnectionCount == 4 }, "\(health.readyConnectionCount) of 4")
    }

    @Test func aFullRedisRefusesWritesAndNothingButMissesFollow() async throws {
        let redis = try RedisServerProcess(extraArguments: ["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"])
        let a = try RedisFleetMember(url: redis.url)
        #expect(await a.waitUntilUp())
        // Fill it past maxmemory (DEBUG POPULATE ignores the limit): every write is refused.
        try redis.cli("DEBUG", "POPULATE", "3000", "fill", "1000")
        let key = RedisTestEntries.key("after-full")
        await a.store(RedisTestEntries.entry("after-full"))
        #expect(await a.waitUntil(.seconds(5)) { a.fleet.health.statistics.errors > 0 }, "Redis answered OOM")
        #expect(a.fleet.health.isUp)
        #expect(await a.lookup(key) == nil)
        let won: Bool = await a.onLoop { m, done in
            m.responseTier.acquireLease(key, ttl: .seconds(1), completion: done)
        }
        #expect(won, "a refused lease lets this proxy fetch")
    }

    @Test func passwordAndDatabaseFromTheURLAreSentOnConnect() async throws {
        let redis = try RedisServerProcess(extraArguments: ["--requirepass", "s3cret"])
        let wrong = try RedisFleetMember(url: "redis://:nope@127.0.0.1:\(redis.port)/3")
        let right = try RedisFleetMember(url: "redis://:s3cret@127.0.0.1:\(redis.port)/3")
        #expect(await right.waitUntilUp())
        #expect(await right.storeAndWait(RedisTestEntries.entry("auth")))
        #expect(try redis.cli("-a", "s3cret", "--no-auth-warning", "-n", "3", "DBSIZE") != "0")
        #expect(try redis.cli("-a", "s3cret", "--no-auth-warning", "-n", "0", "DBSIZE") == "0")
        #expect(!wrong.fleet.health.isUp, "a refused AUTH never counts as connected")
        #expect(await wrong.lookup(RedisTestEntries.key("auth")) == nil)
    }
}


// The registry written back (docs/FLEET.md, "No purge lost"): when the check finds that
// Redis started empty (a new data epoch), this proxy writes every document it knows back to it,
// paced on loop 0 and never on a client's path, so that other and new proxies find them there.

import BreakwaterCore
import Logging

/// Writes the local registry back to Redis after Redis lost it; loop 0 only.
final class RedisRegistryWriteBack {
    private let tier: RedisDocumentTier
    private let state: RedisFleetState
    private let logger: Logger
    /// The local registry: its digests, and each one's document.
    var source: (digests: @Sendable () -> [SHA256Digest], document: @Sendable (SHA256Digest) -> String?)?
    private var epoch = RedisDataEpoch()
    private var run: RegistryWriteBack?
    /// Counts runs, so that a superseded run's timer does nothing.
    private var runNumber = 0
    private var written = 0

    /// Documents per step, and the time between steps: at most 1,000 documents a second.
    static let batchSize = 100
    static let stepInterval = Duration.milliseconds(100)

    init(tier: RedisDocumentTier, state: RedisFleetState, logger: Logger) {
        (self.tier, self.state, self.logger) = (tier, state, logger)
    }

    /// The check read `epoch` from Redis (`setHere`: this proxy just set it, Redis was empty).
    func observed(epoch token: String, setHere: Bool) {
        guard epoch.observed(token, setByThisProxy: setHere), let source else { return }
        let digests = source.digests()
        guard !digests.isEmpty else { return }
        logger.notice(
            "redis started empty: writing this proxy's registry back in the background",
            metadata: ["redis.documents": "\(digests.count)"])
        runNumber += 1
        written = 0
        run = RegistryWriteBack(digests, batchSize: Self.batchSize)
        step(runNumber)
    }

    private func step(_ number: Int) {
        guard number == runNumber, var run, let source else { return }
        let batch = run.nextBatch()
        self.run = run
        for digest in batch {
            guard let document = source.document(digest) else { continue }
            tier.restore(digest, document: document) { [self] stored in
                guard stored else { return }
                state.health.record(loop: tier.loopIndex) { $0.documentsWrittenBack += 1 }
                written += 1
            }
        }
        guard !run.isFinished else {
            tier.loop.schedule(after: Self.stepInterval) { [self] in
                guard number == runNumber else { return }
                logger.notice("redis registry written back", metadata: ["redis.documents": "\(written)"])
                self.run = nil
            }
            return
        }
        tier.loop.schedule(after: Self.stepInterval) { [self] in step(number) }
    }
}

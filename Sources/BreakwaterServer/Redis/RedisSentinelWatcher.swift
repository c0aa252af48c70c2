// Follows the Redis master through Redis Sentinel (`redis.sentinels`, docs/FLEET.md): asks the
// sentinels where it is at start and after any connection loss, listens on each sentinel's
// `+switch-master` channel, and has the fleet move every connection when it changes.
// `SentinelMaster` decides; this carries out, on one event loop.

import BreakwaterCore
import Logging
import Synchronization

/// The sentinels of one process, and the master they point at; lives on `loop`.
final class RedisSentinelWatcher: @unchecked Sendable {
    let loop: EventLoop
    private let logger: Logger
    /// One connection per sentinel for questions, and one subscribed to `+switch-master`.
    private let queries: [RedisConnection]
    private let subscribers: [RedisConnection]
    /// Called on `loop` with each new master: every connection of the fleet moves there.
    private let moved: (RedisHostPort) -> Void
    // Touched only on `loop`.
    private var master: SentinelMaster
    /// Numbers each round of questions: only its first answer counts (sentinels may disagree
    /// for a moment during a failover; `+switch-master` settles it).
    private var round = 0
    /// The master and the failovers so far, for `/stats` from any thread.
    private let shown = Mutex<(master: String, failovers: Int)>(("", 0))
    /// Per sentinel: its refusal was logged since it last answered, so that the retries of its
    /// two connections stay quiet (one line per sentinel and state change).
    private var refusalLogged: [Bool]

    /// How soon the sentinels are asked again when none could say where the master is.
    private static let retryDelay = Duration.seconds(1)

    init(
        settings: RedisSettings, loop: EventLoop, health: RedisHealth, logger: Logger,
        moved: @escaping (RedisHostPort) -> Void
    ) {
        self.loop = loop
        self.logger = logger
        self.moved = moved
        let masterName = settings.masterName
        master = SentinelMaster(masterName: masterName)
        // A sentinel answers quickly or not at all; it is not on any request's path.
        let timeout = max(settings.timeout, .milliseconds(500))
        queries = settings.sentinels.map {
            RedisConnection(
                loop: loop, endpoint: $0, timeout: timeout, role: .commands, health: health, logger: logger,
                reportsHealth: false)
        }
        var subscribers: [RedisConnection] = []
        var boxes: [WeakWatcher] = []
        for sentinel in settings.sentinels {
            // Captures the watcher weakly through a box set below: the connection is made first.
            let box = WeakWatcher()
            let connection = RedisConnection(
                loop: loop, endpoint: sentinel, timeout: timeout,
                role: .subscriber(
                    channels: ["+switch-master"],
                    onMessage: { _, payload in
                        box.watcher?.switchAnnounced(String(decoding: payload, as: UTF8.self))
                    }),
                health: health, logger: logger, reportsHealth: false)
            subscribers.append(connection)
            boxes.append(box)
        }
        self.subscribers = subscribers
        refusalLogged = Array(repeating: false, count: settings.sentinels.count)
        for box in boxes { box.watcher = self }
    }

    /// The master's `host:port` ("" until known) and how many times it moved since start.
    var status: (master: String, failovers: Int) { shown.withLock { $0 } }

    /// Connects to every sentinel and asks for the master; call on `loop`.
    func start() {
        for (index, query) in queries.enumerated() {
            query.onReady = { [weak self] in
                guard let self else { return }
                self.refusalLogged[index] = false
                if self.master.isAsking { self.ask() }
            }
            query.onRefused = { [weak self] command, error in self?.refused(sentinel: index, command, error) }
            query.start()
        }
        for (index, subscriber) in subscribers.enumerated() {
            subscriber.onRefused = { [weak self] command, error in self?.refused(sentinel: index, command, error) }
            subscriber.start()
        }
        act(master.started())
    }

    /// A sentinel refused this proxy's handshake (a wrong or missing `redis.sentinel_password`):
    /// logged once until it answers, while its connections retry with backoff. Without a sentinel
    /// that answers, the master stays unknown and the proxy serves from local memory.
    private func refused(sentinel index: Int, _ command: String, _ error: String) {
        guard !refusalLogged[index] else { return }
        refusalLogged[index] = true
        let sentinel = queries[index].endpoint
        logger.error(
            "redis sentinel refused the connection: check redis.sentinel_password (serving from local memory until a sentinel names the master)",
            metadata: [
                "redis.sentinel": "\(sentinel)", "redis.command": "\(command)", "redis.reply": "\(error)",
                "redis.sentinel_password_sent": .stringConvertible(sentinel.password != nil),
            ])
    }

    /// A connection to the master was lost or refused; from any thread.
    func connectionLost() {
        let bound = LoopBound(self)
        loop.execute { bound.value.act(bound.value.master.connectionLost()) }
    }

    private func switchAnnounced(_ payload: String) {
        logger.notice("redis sentinel: +switch-master", metadata: ["redis.sentinel.message": "\(payload)"])
        act(master.switchAnnounced(payload))
    }

    private func act(_ action: SentinelMaster.Action) {
        switch action {
        case .none:
            break
        case .ask:
            ask()
        case .move(let address):
            shown.withLock { $0 = (address.description, master.failovers) }
            logger.notice(
                master.failovers == 0 ? "redis sentinel: master found" : "redis sentinel: master moved, following it",
                metadata: [
                    "redis.master": "\(address)", "redis.master_name": "\(master.masterName)",
                    "redis.failovers": "\(master.failovers)",
                ])
            moved(address)
        }
    }

    /// Sends the question to every sentinel that is connected; the first answer counts. With none
    /// connected yet, the first to connect asks (`start`).
    private func ask() {
        round += 1
        let thisRound = round
        let ready = queries.filter(\.isReady)
        guard !ready.isEmpty else { return }
        var unanswered = ready.count
        let question = ["SENTINEL", "get-master-addr-by-name", master.masterName].map { Array($0.utf8) }
        for query in ready {
            query.send(question) { [weak self] reply in
                guard let self, thisRound == self.round, self.master.isAsking else { return }
                unanswered -= 1
                var address: RedisHostPort?
                if case .array(let parts)? = reply {
                    address = SentinelMaster.parseAnswer(parts.map { String(decoding: $0.bytes ?? [], as: UTF8.self) })
                }
                guard address != nil || unanswered == 0 else { return }
                self.act(self.master.answered(address))
                if self.master.master == nil { self.askAgainLater() }
            }
        }
    }

    /// No sentinel knew the master yet: ask again shortly, until one does.
    private func askAgainLater() {
        loop.schedule(after: Self.retryDelay) { [weak self] in
            guard let self, self.master.master == nil else { return }
            self.act(self.master.connectionLost())
        }
    }
}

/// Lets a sentinel's subscriber reach the watcher made after it, without keeping it alive.
private final class WeakWatcher {
    weak var watcher: RedisSentinelWatcher?
}

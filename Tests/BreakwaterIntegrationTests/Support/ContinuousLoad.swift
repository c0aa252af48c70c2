// Clients that send requests without pause while a test restarts or replaces the proxy, and
// check every answer: the measure of "no refused connection, no failed request".

import BreakwaterTesting
import Foundation

/// Keep-alive clients and new-connection-per-request clients sending one cacheable GraphQL
/// request over and over to a port until stopped.
final class ContinuousLoad: @unchecked Sendable {
    /// What the clients saw.
    struct Tally {
        /// Answers 200 with a `data` member.
        var answered = 0
        /// Connections refused (or reset while connecting).
        var refused = 0
        /// Everything else that went wrong: another status, a broken answer, a timeout, a
        /// connection closed before its first answer.
        var failed = 0
        /// Requests sent again on a new connection because a reused connection closed before any
        /// byte of their answer came (RFC 9112, 9.3.1: what every HTTP client does).
        var retried = 0
        var failures: [String] = []
    }

    static let body = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#

    private let port: Int
    private let lock = NSLock()
    private var tally = Tally()
    private var running = true
    private let finished = DispatchGroup()

    init(port: Int, keepAliveClients: Int = 2, freshClients: Int = 2) {
        self.port = port
        for _ in 0..<keepAliveClients { spawn { $0.keepAliveClient() } }
        for _ in 0..<freshClients { spawn { $0.freshClient() } }
    }

    private func spawn(_ body: @escaping @Sendable (ContinuousLoad) -> Void) {
        finished.enter()
        Thread { [self] in
            body(self)
            finished.leave()
        }.start()
    }

    private var isRunning: Bool { lock.withLock { running } }

    private func record(_ change: (inout Tally) -> Void) { lock.withLock { change(&tally) } }

    /// The counts so far.
    var current: Tally { lock.withLock { tally } }

    /// Stops the clients and returns what they saw.
    func stop() -> Tally {
        lock.withLock { running = false }
        finished.wait()
        return current
    }

    private func check(_ response: HTTPClientResponse) {
        if response.status == 200 && response.text.contains(#""data""#) {
            record { $0.answered += 1 }
        } else {
            record {
                $0.failed += 1
                $0.failures.append("status \(response.status): \(response.text.prefix(200))")
            }
        }
    }

    private func keepAliveClient() {
        var connection: KeepAliveClient?
        var reused = false
        while isRunning {
            if connection == nil {
                do {
                    connection = try KeepAliveClient(port: port, timeout: .seconds(5))
                    reused = false
                } catch {
                    record {
                        $0.refused += 1
                        $0.failures.append("keep-alive connect: \(error)")
                    }
                    Thread.sleep(forTimeInterval: 0.005)
                    continue
                }
            }
            guard let open = connection else { continue }
            do {
                let response = try open.post("/graphql", json: Self.body)
                check(response)
                reused = true
                if !open.isOpen { connection = nil }
            } catch let error as HTTPClientError {
                connection = nil
                if reused, case .closed = error {
                    record { $0.retried += 1 }
                } else {
                    record {
                        $0.failed += 1
                        $0.failures.append("keep-alive: \(error)")
                    }
                }
            } catch {
                connection = nil
                record {
                    $0.failed += 1
                    $0.failures.append("keep-alive: \(error)")
                }
            }
        }
        connection?.close()
    }

    private func freshClient() {
        let client = HTTPClient(port: port)
        while isRunning {
            do {
                check(try client.post("/graphql", json: Self.body))
            } catch HTTPClientError.connectFailed(let address, let reason) {
                record {
                    $0.refused += 1
                    $0.failures.append("connect \(address): \(reason)")
                }
                Thread.sleep(forTimeInterval: 0.005)
            } catch {
                record {
                    $0.failed += 1
                    $0.failures.append("\(error)")
                }
            }
        }
    }
}

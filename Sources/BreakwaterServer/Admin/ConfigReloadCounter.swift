// The reloads the process ran (SIGHUP), counted where the admin endpoints read them: the
// service reports each one's result, `/stats` and `/metrics` show the figures.

import BreakwaterCore
import Foundation
import Synchronization

/// Configuration reloads since start, safe to record from the signal loop and read from any.
final class ConfigReloadCounter: Sendable {
    private let figures: Mutex<ConfigReloadFigures>

    /// Starts with the configuration loaded now, at start.
    init() {
        figures = Mutex(ConfigReloadFigures(lastSuccessTimestamp: Date().timeIntervalSince1970))
    }

    /// Counts one reload; a success moves the last-success time to now.
    func record(succeeded: Bool) {
        let now = Date().timeIntervalSince1970
        figures.withLock {
            if succeeded {
                $0.successes += 1
                $0.lastSuccessTimestamp = now
            } else {
                $0.failures += 1
            }
        }
    }

    var snapshot: ConfigReloadFigures { figures.withLock { $0 } }
}

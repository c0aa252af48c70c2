// The demo origin's churn control (docs/FRESHNESS.md): chosen
// fields of every launch change as a Poisson process with a given mean interval, so that the
// suggested TTLs can be checked against a known truth. `breakwater demo --churn Launch.site=30s`.

import BreakwaterCore
import Foundation
import Synchronization

/// Fields that change at known rates, each launch on its own clock.
package final class DemoChurn: Sendable {
    /// A field that can churn.
    package enum Field: String, Sendable, CaseIterable {
        case launchSite = "Launch.site"
        case missionName = "Mission.name"
        case rocketName = "Rocket.name"
    }

    /// One `Type.field=interval` setting.
    package struct Rule: Sendable, Equatable {
        package var field: Field
        package var meanInterval: Duration

        /// Parses `Launch.site=30s`; nil with the reason in `problem` otherwise.
        package init(parsing text: String) throws(DemoChurnError) {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let field = Field(rawValue: parts[0]) else {
                let known = Field.allCases.map(\.rawValue).joined(separator: ", ")
                throw DemoChurnError(description: "--churn \(text): expected FIELD=INTERVAL with FIELD one of \(known)")
            }
            guard let interval = Duration(parsing: parts[1]), interval > .zero else {
                throw DemoChurnError(description: "--churn \(text): \(parts[1]) is not a positive duration (e.g. 30s)")
            }
            self.field = field
            meanInterval = interval
        }
    }

    private struct Clock {
        var changes = 0
        var next: ContinuousClock.Instant
    }

    private let rules: [Rule]
    private let clocks = Mutex([String: Clock]())
    private let now: @Sendable () -> ContinuousClock.Instant

    package init(rules: [Rule], now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.rules = rules
        self.now = now
    }

    /// How many times `field` of launch `id` has changed by now: Poisson arrivals, drawn as
    /// exponential gaps with the rule's mean as time passes.
    package func changes(of field: Field, launch id: String) -> Int {
        guard let rule = rules.first(where: { $0.field == field }) else { return 0 }
        let mean = Double(rule.meanInterval.components.seconds) + Double(rule.meanInterval.components.attoseconds) * 1e-18
        let now = now()
        return clocks.withLock { clocks in
            let key = "\(field.rawValue)#\(id)"
            var clock = clocks[key] ?? Clock(next: now + Self.gap(mean))
            while clock.next <= now {
                clock.changes += 1
                clock.next += Self.gap(mean)
            }
            clocks[key] = clock
            return clock.changes
        }
    }

    /// An exponential gap with mean `mean` seconds.
    private static func gap(_ mean: Double) -> Duration {
        .seconds(-mean * log(1 - Double.random(in: 0..<1)))
    }

    /// `launch` with its churning fields as they are now.
    func applied(to launch: Launch) -> Launch {
        var launch = launch
        let id = launch.id.rawValue
        if let site = launch.site { launch.site = Self.revised(site, changes(of: .launchSite, launch: id)) }
        if let name = launch.mission?.name { launch.mission?.name = Self.revised(name, changes(of: .missionName, launch: id)) }
        if let name = launch.rocket?.name { launch.rocket?.name = Self.revised(name, changes(of: .rocketName, launch: id)) }
        return launch
    }

    private static func revised(_ value: String, _ changes: Int) -> String {
        changes == 0 ? value : "\(value) (rev \(changes))"
    }
}

/// A `--churn` setting that cannot be read.
package struct DemoChurnError: Error, CustomStringConvertible {
    package var description: String
}

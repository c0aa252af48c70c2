// The demo's launches: a hundred of them, every field computed from the id so runs agree.

/// The fixed list of launches "1"..."100" and cursor pagination over it.
struct LaunchCatalog: Sendable {
    /// In id order: `launches[0]` is launch "1".
    let launches: [Launch]
    /// Fields that change as time passes (`--churn`); nil: the catalog never changes.
    let churn: DemoChurn?

    init(count: Int = 100, churn: DemoChurn? = nil) {
        launches = (1...count).map(Self.makeLaunch)
        self.churn = churn
    }

    /// The launch with `id`, or nil for an id the catalog does not hold.
    func launch(id: String) -> Launch? {
        guard let number = Int(id), number >= 1, number <= launches.count, String(number) == id else {
            return nil
        }
        return current(launches[number - 1])
    }

    /// `launch` as it is now (its churning fields changed).
    private func current(_ launch: Launch) -> Launch {
        churn?.applied(to: launch) ?? launch
    }

    /// A page of `size` launches, newest first as in the Apollo tutorial, starting after the
    /// launch whose cursor is `after`; an unknown cursor starts from the newest again.
    ///
    /// A launch's cursor is its id; the page's cursor is its last launch's.
    func page(size: Int, after cursor: String?) -> LaunchConnection {
        let newestFirst = Array(launches.reversed())
        var start = 0
        if let cursor, let index = newestFirst.firstIndex(where: { $0.id.rawValue == cursor }) {
            start = index + 1
        }
        let end = min(newestFirst.count, start + max(0, size))
        let slice = newestFirst[start..<end].map(current)
        return LaunchConnection(
            cursor: slice.last?.id.rawValue ?? cursor ?? "",
            hasMore: end < newestFirst.count,
            launches: slice
        )
    }

    private static let earlySite = "Kwajalein Atoll"
    private static let sites = ["CCAFS SLC 40", "KSC LC 39A", "VAFB SLC 4E"]
    private static let earlyMissions = ["FalconSat", "DemoSat", "Trailblazer", "RatSat", "RazakSat"]
    private static let missionSeries = [
        "Starlink", "CRS", "Iridium NEXT", "SES", "GPS III", "Telstar", "Crew Dragon", "Transporter", "NROL",
        "Bandwagon",
    ]
    private static let falcon1 = Rocket(id: "falcon1", name: "Falcon 1", type: "Merlin A")
    private static let falcon9 = Rocket(id: "falcon9", name: "Falcon 9", type: "FT")
    private static let falconHeavy = Rocket(id: "falconheavy", name: "Falcon Heavy", type: "FT")

    /// Launch `number`: the first five flew Falcon 1 from Kwajalein, every fifteenth is a
    /// Falcon Heavy from 39A, the rest Falcon 9s from the three pads in turn.
    private static func makeLaunch(_ number: Int) -> Launch {
        let id = String(number)
        let patchBase = "https://patches.example.com/launches/\(id)"
        let mission: String
        let rocket: Rocket
        let site: String
        if number <= earlyMissions.count {
            mission = earlyMissions[number - 1]
            rocket = falcon1
            site = earlySite
        } else {
            // Series take turns; the number counts that series' flights so far ("Starlink-6").
            let series = missionSeries[number % missionSeries.count]
            mission = "\(series)-\((number + missionSeries.count - 1) / missionSeries.count)"
            rocket = number % 15 == 0 ? falconHeavy : falcon9
            site = number % 15 == 0 ? sites[1] : sites[number % sites.count]
        }
        return Launch(
            id: Identifier(id),
            site: site,
            mission: Mission(
                name: mission, smallPatchURL: "\(patchBase)/small.png", largePatchURL: "\(patchBase)/large.png"
            ),
            rocket: rocket
        )
    }
}

// Who booked which launch: the demo's only mutable state besides the test controls.

import Synchronization

/// Bookings per user, in memory; resolvers of concurrent requests read and write it.
final class BookingLedger: Sendable {
    /// Launch ids per user email, in booking order so `trips` answers deterministically.
    private let bookings = Mutex<[String: [String]]>([:])

    init() {}

    func isBooked(_ launchID: String, by email: String) -> Bool {
        bookings.withLock { $0[email]?.contains(launchID) ?? false }
    }

    /// The user's booked launch ids, oldest booking first.
    func bookings(of email: String) -> [String] {
        bookings.withLock { $0[email] ?? [] }
    }

    /// Books every id not booked yet; booking twice is not an error, as in the tutorial.
    func book(_ launchIDs: [String], for email: String) {
        bookings.withLock { all in
            var trips = all[email] ?? []
            for id in launchIDs where !trips.contains(id) { trips.append(id) }
            all[email] = trips
        }
    }

    /// Cancels a booking; false when there was none to cancel.
    func cancel(_ launchID: String, for email: String) -> Bool {
        bookings.withLock { all in
            guard let index = all[email]?.firstIndex(of: launchID) else { return false }
            all[email]?.remove(at: index)
            return true
        }
    }
}

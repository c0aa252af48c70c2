// The answer of the booking mutations.

/// What `bookTrips` and `cancelTrip` answer.
struct TripUpdateResponse: Sendable, Equatable {
    var success: Bool
    var message: String?
    var launches: [Launch?]?
}

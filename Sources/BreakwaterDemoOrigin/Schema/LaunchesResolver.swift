// The root fields of the launches schema: queries, mutations and the two test-only fields.

import Graphiti

/// Resolves the Query and Mutation fields; all state lives in the context, so it is stateless.
struct LaunchesResolver: Sendable {
    struct LaunchesArguments: Codable, Sendable {
        var pageSize: Int?
        var after: String?
    }

    func launches(context: LaunchesContext, arguments: LaunchesArguments) -> LaunchConnection {
        context.catalog.page(size: arguments.pageSize ?? 20, after: arguments.after)
    }

    struct LaunchArguments: Codable, Sendable {
        var id: Identifier
    }

    func launch(context: LaunchesContext, arguments: LaunchArguments) -> Launch? {
        context.catalog.launch(id: arguments.id.rawValue)
    }

    func me(context: LaunchesContext, arguments _: NoArguments) -> User? {
        context.user
    }

    struct SlowArguments: Codable, Sendable {
        var ms: Int
    }

    /// Answers after `ms` milliseconds, so tests can hold an origin request open (coalescing, timeouts).
    func slow(context _: LaunchesContext, arguments: SlowArguments) async throws -> String? {
        try await Task.sleep(for: .milliseconds(min(max(arguments.ms, 0), 600_000)))
        return "slow"
    }

    /// Always fails, so tests get a 200 answer with `data.boom` null and an `errors` entry.
    func boom(context _: LaunchesContext, arguments _: NoArguments) throws -> String? {
        throw DemoFieldError(description: "boom")
    }

    // MARK: Mutations

    struct BookTripsArguments: Codable, Sendable {
        var launchIds: [Identifier?]
    }

    func bookTrips(context: LaunchesContext, arguments: BookTripsArguments) -> TripUpdateResponse {
        guard let user = context.user else { return .notSignedIn }
        let ids = arguments.launchIds.compactMap { $0?.rawValue }
        let known = ids.filter { context.catalog.launch(id: $0) != nil }
        context.ledger.book(known, for: user.email)
        let unknown = ids.filter { context.catalog.launch(id: $0) == nil }
        return TripUpdateResponse(
            success: unknown.isEmpty,
            message: unknown.isEmpty
                ? "trips booked successfully"
                : "the following launches couldn't be booked: \(unknown.joined(separator: ", "))",
            launches: known.map { context.catalog.launch(id: $0) }
        )
    }

    struct CancelTripArguments: Codable, Sendable {
        var launchId: Identifier
    }

    func cancelTrip(context: LaunchesContext, arguments: CancelTripArguments) -> TripUpdateResponse {
        guard let user = context.user else { return .notSignedIn }
        let id = arguments.launchId.rawValue
        guard context.ledger.cancel(id, for: user.email) else {
            return TripUpdateResponse(success: false, message: "failed to cancel trip", launches: [])
        }
        return TripUpdateResponse(success: true, message: "trip cancelled", launches: [context.catalog.launch(id: id)])
    }

    struct LoginArguments: Codable, Sendable {
        var email: String?
    }

    /// The token to send as `Authorization`; nil without an email, as there is no one to sign in.
    func login(context _: LaunchesContext, arguments: LoginArguments) -> String? {
        guard let email = arguments.email, !email.isEmpty else { return nil }
        return LaunchesContext.token(email: email)
    }
}

/// A resolver failure whose description becomes the GraphQL error's message.
struct DemoFieldError: Error, CustomStringConvertible {
    var description: String
}

extension TripUpdateResponse {
    static let notSignedIn = TripUpdateResponse(
        success: false, message: "not signed in: send an Authorization header", launches: []
    )
}

// What every resolver of one request sees: the asking user and the shared data.

import Foundation

/// The per-request context of the launches schema.
struct LaunchesContext: Sendable {
    /// The signed-in user, or nil when the request had no `Authorization` header.
    var user: User?
    var catalog: LaunchCatalog
    var ledger: BookingLedger

    /// The user an `Authorization` header value names.
    ///
    /// The value is the token `login` hands out (base64 of the email), optionally after
    /// `Bearer `, or the plain email; anything else is taken as an opaque user name, so any
    /// non-empty header signs someone in, deterministically.
    static func user(authorization: String?) -> User? {
        guard var value = authorization?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.lowercased().hasPrefix("bearer ") {
            value = value.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        }
        guard !value.isEmpty else { return nil }
        let email = decodedToken(value) ?? value
        return User(id: Identifier(userID(email: email)), email: email)
    }

    /// The token `login` answers for `email`.
    static func token(email: String) -> String {
        Data(email.utf8).base64EncodedString()
    }

    /// The email inside a token, when `value` is base64 of something that looks like one.
    private static func decodedToken(_ value: String) -> String? {
        guard !value.contains("@"), let data = Data(base64Encoded: value),
            let email = String(data: data, encoding: .utf8), email.contains("@")
        else { return nil }
        return email
    }

    /// A stable id per email (FNV-1a), so `me { id }` is the same in every run.
    private static func userID(email: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in email.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "user-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

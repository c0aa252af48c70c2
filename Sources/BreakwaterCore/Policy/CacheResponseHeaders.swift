// The cache-related headers Breakwater puts on its answers (README "The response cache").

/// Values of `Cache-Control` and `Age` for answers to clients.
package enum CacheResponseHeaders {
    /// `public, max-age=<the entry's whole TTL>` for a cacheable public answer to a GET, with
    /// `stale-while-revalidate=<s>` and `stale-if-error=<s>` when those windows are set;
    /// `private, no-store` for anything else.
    ///
    /// `max-age` is the whole TTL, never the remaining one: the answer also carries `Age`, and a
    /// cache in front subtracts it itself (RFC 9111 section 4.2.3); sending the remaining TTL with
    /// `Age` would count the age twice.
    package static func cacheControl(
        isPublicGET: Bool, ttl: Duration, staleWhileRevalidate: Duration = .zero, staleIfError: Duration = .zero
    ) -> String {
        guard isPublicGET else { return "private, no-store" }
        var value = "public, max-age=\(wholeSeconds(ttl))"
        if staleWhileRevalidate > .zero { value += ", stale-while-revalidate=\(wholeSeconds(staleWhileRevalidate))" }
        if staleIfError > .zero { value += ", stale-if-error=\(wholeSeconds(staleIfError))" }
        return value
    }

    /// The entry's age in whole seconds.
    package static func age(_ age: Duration) -> String {
        String.decimal(Int(wholeSeconds(age)))
    }

    /// Floor of a duration in seconds, never negative (clock skew must not print `-1`).
    package static func wholeSeconds(_ duration: Duration) -> Int64 {
        duration > .zero ? duration.components.seconds : 0
    }
}

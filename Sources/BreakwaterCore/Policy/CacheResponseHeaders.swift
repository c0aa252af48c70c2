// The cache-related headers Breakwater puts on its answers (SPEC section 5.2).

/// Values of `Cache-Control` and `Age` for answers to clients.
package enum CacheResponseHeaders {
    /// `public, max-age=<whole seconds remaining>` for a cacheable public answer to a GET, so a
    /// CDN in front may keep it no longer than we would; `private, no-store` for anything else.
    package static func cacheControl(isPublicGET: Bool, remaining: Duration) -> String {
        isPublicGET ? "public, max-age=\(wholeSeconds(remaining))" : "private, no-store"
    }

    /// The entry's age in whole seconds.
    package static func age(_ age: Duration) -> String {
        String(wholeSeconds(age))
    }

    /// Floor of a duration in seconds, never negative (clock skew must not print `-1`).
    private static func wholeSeconds(_ duration: Duration) -> Int64 {
        duration > .zero ? duration.components.seconds : 0
    }
}

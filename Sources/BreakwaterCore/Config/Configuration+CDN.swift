// `cdn:` (docs/CDN.md): the caches in front that Breakwater purges whenever it purges, and how
// their purge calls are batched, retried and bounded.

extension Configuration {
    /// The optional CDN purging.
    public struct CDN: Sendable, Equatable {
        /// Varnish, Fastly, Cloudflare or webhook targets; empty: nothing is sent.
        public var targets: [CDNTarget] = []
        /// Purges within this window go out as one round of calls per target.
        public var batchWindow = Duration.milliseconds(50)
        /// One call's whole exchange.
        public var timeout = Duration.seconds(2)
        /// Attempts after the first for a failed call, with backoff; then logged and counted.
        public var retries = 3
        /// Purges waiting per target; beyond it they become one purge of everything.
        public var maxQueue = 10_000
        public init() {}
    }
}

// What `SIGHUP` reloads did, for `/stats` and `/metrics`: counted by the process, which alone
// knows when a reload ran, and read into the report with the other figures.

/// Configuration reloads since start, and when the running configuration was last loaded.
package struct ConfigReloadFigures: Sendable, Equatable {
    /// Reloads applied.
    package var successes = 0
    /// Reloads refused (a bad file, an invalid setting); the running configuration stayed.
    package var failures = 0
    /// When the running configuration was last loaded, in seconds since the Unix epoch: the
    /// start, then each successful reload.
    package var lastSuccessTimestamp: Double

    package init(successes: Int = 0, failures: Int = 0, lastSuccessTimestamp: Double) {
        self.successes = successes
        self.failures = failures
        self.lastSuccessTimestamp = lastSuccessTimestamp
    }
}

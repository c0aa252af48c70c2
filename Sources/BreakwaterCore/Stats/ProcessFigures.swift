// The standard `process_*` figures of a Prometheus exporter (resident memory, open file
// descriptors, CPU seconds, start time), as values; read from the operating system by the
// server target and rendered with the rest of `/metrics`.

/// One reading of the process's resource use.
package struct ProcessFigures: Sendable, Equatable {
    package var residentMemoryBytes: Int
    package var virtualMemoryBytes: Int
    package var openFileDescriptors: Int
    package var maxFileDescriptors: Int
    package var cpuSeconds: Double
    /// Wall-clock start of the process, in seconds since the Unix epoch.
    package var startTimeSeconds: Double

    package init(
        residentMemoryBytes: Int, virtualMemoryBytes: Int, openFileDescriptors: Int, maxFileDescriptors: Int,
        cpuSeconds: Double, startTimeSeconds: Double
    ) {
        self.residentMemoryBytes = residentMemoryBytes
        self.virtualMemoryBytes = virtualMemoryBytes
        self.openFileDescriptors = openFileDescriptors
        self.maxFileDescriptors = maxFileDescriptors
        self.cpuSeconds = cpuSeconds
        self.startTimeSeconds = startTimeSeconds
    }
}

// Starts a child process with posix_spawn: own process group, clean signals, stdout and stderr on one pipe.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum ProcessSpawner {
    /// Spawns `executable` (searched in PATH when it has no slash) with stdin from /dev/null and stdout
    /// and stderr both writing to one pipe, whose read end is returned.
    ///
    /// The child leads a new process group, so the whole tree can be signalled, and starts with default
    /// signal handlers and an empty mask, whatever the test runner set.
    static func spawn(
        executable: String, arguments: [String], environment: [String: String]
    ) throws(ManagedProcessError) -> (pid: pid_t, output: Int32) {
        var pipeEnds: [Int32] = [-1, -1]
        guard makePipe(&pipeEnds) == 0 else {
            throw .spawnFailed(executable: executable, reason: "pipe: \(Posix.describe(errno: errno))")
        }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        closeInheritedDescriptors(&actions)

        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)

        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }

        var pid = pid_t()
        let status = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        _ = close(writeEnd)
        guard status == 0 else {
            _ = close(readEnd)
            throw .spawnFailed(executable: executable, reason: Posix.describe(errno: status))
        }
        return (pid, readEnd)
    }

    /// A close-on-exec pipe (Swift does not import `pipe2`, a GNU extension); children of other spawners
    /// that start in between may inherit it, which only delays end-of-file until they exit.
    private static func makePipe(_ ends: inout [Int32]) -> Int32 {
        guard pipe(&ends) == 0 else { return -1 }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    #if canImport(Glibc)
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// Closes every descriptor above stderr in the child, so it cannot hold another test's socket or pipe.
    ///
    /// Swift does not import glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), so look it up.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
    }
    #else
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t?) {}
    #endif
}

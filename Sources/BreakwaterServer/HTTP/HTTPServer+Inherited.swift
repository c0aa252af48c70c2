// Choosing between binding a configured address and serving inherited listening sockets.

import BreakwaterCore
import Foundation
import Glibc
import Logging

extension HTTPServer {
    /// Serves `inherited` when it holds sockets, else binds `address`. An inherited socket bound
    /// elsewhere than `address` is served anyway (whoever passed it owns the address then), and
    /// the difference is logged with both addresses.
    static func make(
        group: EventLoopGroup, address: HostPort, inherited: [Int32], limits: HTTPLimits, logger: Logger,
        makeHandler: (EventLoop) throws(ServerError) -> any HTTPHandler
    ) throws(ServerError) -> HTTPServer {
        guard !inherited.isEmpty else {
            return try HTTPServer(group: group, address: address, limits: limits, makeHandler: makeHandler)
        }
        for descriptor in inherited {
            let bound = Socket.boundAddress(of: descriptor)
            if bound != address.description && !(address.port == 0 && bound.hasPrefix(address.host + ":")) {
                logger.notice(
                    "inherited listening socket is bound to \(bound), not the configured \(address); serving it",
                    metadata: ["listener.bound": "\(bound)", "listener.configured": "\(address)"])
            }
        }
        return try HTTPServer(
            group: group, inherited: inherited, label: address.description, limits: limits, makeHandler: makeHandler)
    }
}

/// Adopting listening sockets passed to the process: checked, non-blocking, close-on-exec.
package enum InheritedSockets {
    /// Checks every socket of `listeners` (sd_listen_fds(3): a listening stream socket) and makes
    /// it non-blocking and close-on-exec; closes them all when one is unusable.
    package static func adopt(_ listeners: InheritedListeners) throws(ServerError) {
        for descriptor in listeners.all {
            do {
                try Socket.adoptListener(descriptor)
            } catch {
                close(listeners)
                throw .setup("inherited socket \(descriptor) cannot be served: \(error)")
            }
        }
    }

    /// The sockets systemd passed (sd_listen_fds(3)), adopted, or nil when the process was not
    /// socket-activated. The activation variables are removed either way, so that a child
    /// process does not take them as its own.
    package static func activated() throws(ServerError) -> InheritedListeners? {
        let environment = ProcessInfo.processInfo.environment
        for name in SocketActivation.variables { unsetenv(name) }
        let listeners: InheritedListeners?
        do {
            listeners = try SocketActivation.listeners(environment: environment, processID: getpid())
        } catch {
            throw .setup("socket activation: \(error)")
        }
        guard let listeners else { return nil }
        try adopt(listeners)
        return listeners
    }

    /// Closes every socket of `listeners` (a start that failed before serving them).
    package static func close(_ listeners: InheritedListeners) {
        for descriptor in listeners.all { Socket.close(descriptor) }
    }
}

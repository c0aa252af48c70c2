// What the proxy needs of its loop's way to the origin: one request in, one result out. The pool
// of keep-alive connections is the one the proxy runs with; the server's in-process tests put a
// scripted origin in its place.

import BreakwaterCore

/// Sends requests to the origin for one event loop. Called on that loop's thread.
package protocol OriginSending: AnyObject {
    /// Sends `request`; `completion` runs on the loop exactly once.
    func send(_ request: UpstreamRequest, completion: @escaping (UpstreamResult) -> Void)
}

extension OriginPool: OriginSending {}

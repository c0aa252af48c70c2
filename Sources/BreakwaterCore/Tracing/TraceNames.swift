// The words Breakwater's spans are written with (docs/TRACING.md, "What is exported"): each span's
// name and each attribute's key, written once here for the builders and the tests.

/// The names of the spans Breakwater exports (docs/TRACING.md lists them).
package enum TraceSpanNames {
    package static let cacheDecision = "breakwater.cache.decision"
    package static let coalescedWait = "breakwater.coalesced.wait"
    package static let l2Lookup = "breakwater.l2.lookup"
    package static let fleetLease = "breakwater.fleet.lease"
    package static let fleetWait = "breakwater.fleet.wait"
    package static let originFetch = "breakwater.origin.fetch"
    package static let cdnPurge = "breakwater.cdn.purge"
}

/// The attribute keys of those spans: OpenTelemetry's semantic conventions where one exists,
/// `breakwater.*` for the rest.
package enum TraceAttributes {
    package static let httpMethod = "http.request.method"
    package static let urlPath = "url.path"
    package static let protocolVersion = "network.protocol.version"
    package static let httpStatus = "http.response.status_code"
    package static let serverAddress = "server.address"
    package static let serverPort = "server.port"
    package static let operationName = "graphql.operation.name"
    package static let operationType = "graphql.operation.type"
    package static let documentHash = "breakwater.document.hash"
    package static let cache = "breakwater.cache"
    package static let requestID = "breakwater.request_id"
    package static let cacheResult = "breakwater.cache.result"
    package static let cacheKey = "breakwater.cache.key"
    package static let bypassReason = "breakwater.bypass_reason"
    package static let l2Result = "breakwater.l2.result"
    package static let leaseAcquired = "breakwater.lease.acquired"
    package static let leaseEntryArrived = "breakwater.lease.entry_arrived"
    package static let connectionReused = "breakwater.origin.connection_reused"
    package static let attempt = "breakwater.origin.attempt"
    package static let cdnTarget = "breakwater.cdn.target"
    package static let cdnPurges = "breakwater.cdn.purges"
}

// The demo GraphQL origin of `breakwater demo` and of the integration tests (README "Two commands").

import BreakwaterCore
import GraphQL
import Graphiti

/// Serves the launches schema over HTTP at `graphqlPath`, and the test controls under `/_demo/`.
///
/// `handle` runs on the I/O layer's event loop, so it only parses the request and counts it;
/// execution runs in a task that answers through the responder when done.
package final class DemoOrigin: HTTPHandler {
    package let graphqlPath: String
    /// Whether `/_demo/` answers; without it those paths are 404 like any unknown path.
    package let testControls: Bool

    let schema: Schema<LaunchesResolver, LaunchesContext>
    let resolver = LaunchesResolver()
    let catalog: LaunchCatalog
    let ledger = BookingLedger()
    let controls = DemoControls()

    /// `churn`: fields that change at known rates (docs/FRESHNESS.md).
    package init(graphqlPath: String = "/graphql", testControls: Bool, churn: DemoChurn? = nil) {
        self.graphqlPath = graphqlPath
        self.testControls = testControls
        catalog = LaunchCatalog(churn: churn)
        schema = Self.launchesSchema
    }

    package func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder) {
        let path = request.path
        if path == graphqlPath {
            handleGraphQL(request, responder: responder)
        } else if testControls, path.hasPrefix(Self.controlsPrefix) {
            responder.respond(answerControl(request))
        } else {
            responder.respond(Self.errorResponse(status: 404, message: "Not found: \(path)", code: "NOT_FOUND"))
        }
    }

    /// The schema is fixed code, so failing to build it is a programming error, not a runtime one.
    private static let launchesSchema: Schema<LaunchesResolver, LaunchesContext> = {
        do {
            return try LaunchesSchema.make()
        } catch {
            fatalError("the launches schema does not build: \(error)")
        }
    }()

    /// Counts the request on arrival, then executes it (or applies the faults) in a task.
    private func handleGraphQL(_ request: HTTPRequest, responder: any HTTPResponder) {
        let parameters: Result<GraphQLParameters, DemoRequestError>? =
            request.method == "GET" || request.method == "POST"
            ? Result { () throws(DemoRequestError) in try GraphQLParameters(request) } : nil
        let query = try? parameters?.get().query
        let operationName = (try? parameters?.get().operationName) ?? query.flatMap(Self.soleOperationName)
        let faults = controls.recordArrival(
            method: request.method.token, operationName: operationName, query: query, headers: request.headers
        )
        Task {
            if faults.delayMilliseconds > 0 {
                try? await Task.sleep(for: .milliseconds(faults.delayMilliseconds))
            }
            if faults.close {
                responder.closeConnection()
                return
            }
            var response: HTTPResponse
            if let status = faults.status {
                response = Self.forcedResponse(status: status, body: faults.statusBody)
            } else if let parameters {
                response = await answer(request, parsed: parameters)
            } else {
                response = Self.errorResponse(
                    status: 405, message: "Method \(request.method) is not allowed; use GET or POST.",
                    code: "METHOD_NOT_ALLOWED"
                )
                response.headers.add("Allow", "GET, POST")
            }
            if let cacheControl = faults.cacheControl { response.headers.replace("Cache-Control", with: cacheControl) }
            if let setCookie = faults.setCookie { response.headers.add("Set-Cookie", setCookie) }
            if let vary = faults.vary { response.headers.add("Vary", vary) }
            responder.respond(response)
        }
    }
}

// Ready-to-paste requests that `breakwater demo` prints for a first look at the proxy.

extension DemoOrigin {
    /// The query of the first example; tests and docs refer to it by this name.
    static let getLaunchesQuery =
        "query GetLaunches { launches(pageSize: 3) { launches { id site mission { name } } } }"
    static let getLaunchQuery =
        "query GetLaunch($id: ID!) { launch(id: $id) { id site rocket { name type } mission { name missionPatch(size: SMALL) } isBooked } }"
    static let meQuery = "query Me { me { email trips { id } } }"
    /// The user the `me` example signs in as.
    static let demoEmail = "demo@example.com"

    /// `curl` lines against the GraphQL endpoint `proxyURL` (e.g. `http://127.0.0.1:8080/graphql`).
    ///
    /// `-i` shows the headers, so running a line twice shows `X-Cache` turn from MISS to HIT.
    package static func curlExamples(proxyURL: String) -> [String] {
        let post = "curl -si \(proxyURL) -H 'Content-Type: application/json'"
        let token = LaunchesContext.token(email: demoEmail)
        return [
            #"\#(post) -d '{"query":"\#(getLaunchesQuery)","operationName":"GetLaunches"}'"#,
            #"\#(post) -d '{"query":"\#(getLaunchQuery)","operationName":"GetLaunch","variables":{"id":"60"}}'"#,
            #"\#(post) -H 'Authorization: \#(token)' -d '{"query":"\#(meQuery)","operationName":"Me"}'"#,
        ]
    }
}
